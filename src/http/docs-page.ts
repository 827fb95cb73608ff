/**
 * The human docs page at /docs, rendered once from the OpenAPI document so the two cannot
 * disagree. Self-contained HTML with inline CSS: the server is offline, so nothing is fetched.
 */
type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

const escapeHtml = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The little Markdown the document uses: `code`, **bold**, and blank-line paragraphs. */
function markdown(text: string | undefined): string {
  if (!text) return '';
  return text
    .split(/\n\n+/)
    .map(
      (paragraph) =>
        `<p>${escapeHtml(paragraph)
          .replace(/`([^`]+)`/g, '<code>$1</code>')
          .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</p>`,
    )
    .join('\n');
}

const refName = (schema: Json | undefined) => (typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop()! : undefined);
const anchor = (name: string) => `schema-${name}`;

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  const name = refName(schema);
  if (name) return `<a href="#${anchor(name)}">${escapeHtml(name)}</a>`;
  const shapes: Json[] | undefined = schema.oneOf ?? schema.anyOf;
  if (shapes) return shapes.map(typeOf).join(' or ');
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (schema.type === 'array') return `array of ${typeOf(schema.items) || 'any'}`;
  if (schema.contentMediaType) return `binary (${escapeHtml(schema.contentMediaType)})`;
  return escapeHtml(schema.format ? `${schema.type} (${schema.format})` : (schema.type ?? 'any'));
}

function constraints(schema: Json): string {
  const shapes: Json[] | undefined = schema.oneOf ?? schema.anyOf;
  // A union (`text | text[]`): each shape's own rules, and an array's rules for its items.
  if (shapes) {
    const ofShape = (shape: Json) => [constraints(shape), shape.items ? constraints(shape.items) : ''].filter(Boolean).join('; each item: ');
    return shapes.map((shape) => `${typeOf(shape)}: ${ofShape(shape) || 'any'}`).join('. ');
  }
  const parts: string[] = [];
  if (schema.enum) parts.push(`one of ${schema.enum.map((v: unknown) => `<code>${escapeHtml(v)}</code>`).join(', ')}`);
  for (const [key, label] of [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['default', 'default'],
  ]) {
    if (schema[key!] !== undefined) parts.push(`${label} ${escapeHtml(schema[key!])}`);
  }
  // The rules JSON Schema cannot say (schema-types.ts).
  if (schema['x-not-blank']) parts.push('not blank');
  if (schema['x-no-control-characters']) parts.push('one line, no control characters');
  if (schema['x-too-large-status'] === 413) parts.push('over max length: 413');
  if (schema.pattern) parts.push(`pattern <code>${escapeHtml(schema.pattern)}</code>`);
  return parts.join('; ');
}

function fieldTable(schema: Json): string {
  const properties: Record<string, Json> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries(properties).map(
    ([name, field]) =>
      `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' <em>required</em>' : ''}</td><td>${typeOf(field)}</td><td>${markdown(field.description)}${constraints(field)}</td></tr>`,
  );
  if (rows.length === 0) return '';
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function parametersTable(parameters: Json[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' <em>required</em>' : ''}</td><td>${escapeHtml(p.in)}</td><td>${typeOf(p.schema)}</td><td>${markdown(p.description)}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function requestBody(body: Json | undefined): string {
  if (!body) return '';
  const types = Object.entries(body.content ?? {}) as Array<[string, Json]>;
  const list = types.map(([type, media]) => `<li><code>${escapeHtml(type)}</code>: ${typeOf(media.schema)}</li>`).join('');
  return `<h4>Request body</h4>${markdown(body.description)}<ul>${list}</ul>`;
}

function responsesTable(responses: Record<string, Json>): string {
  const rows = Object.entries(responses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, response]) => {
      const media = Object.entries(response.content ?? {}) as Array<[string, Json]>;
      const body = media.map(([type, m]) => `<code>${escapeHtml(type)}</code> ${typeOf(m.schema)}`).join('<br>') || '(no body)';
      return `<tr><td class="status s${status[0]}">${escapeHtml(status)}</td><td>${markdown(response.description)}</td><td>${body}</td></tr>`;
    });
  return `<h4>Responses</h4><table><thead><tr><th>Status</th><th>Meaning</th><th>Body</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function operation(path: string, method: string, op: Json, shared: Json[]): string {
  const lock = op.security?.length ? ' <span class="lock" title="Needs Authorization: Bearer &lt;API_KEY&gt;">Bearer</span>' : '';
  return `<section class="op" id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code>${lock}</h3>
<p class="summary">${escapeHtml(op.summary ?? '')}</p>${markdown(op.description)}
${parametersTable([...shared, ...(op.parameters ?? [])])}${requestBody(op.requestBody)}${responsesTable(op.responses ?? {})}
</section>`;
}

const CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#fafafa}
td p{margin:0}.op{border-top:1px solid #ccc;margin-top:1.5rem}.method{color:#fff;border-radius:3px;padding:0 .4em;font-size:.85em}
.get{background:#2b7}.post{background:#27c}.put{background:#c80}.delete{background:#c33}.lock{font-size:.75em;border:1px solid #999;border-radius:3px;padding:0 .3em;color:#555}
.status{font-weight:bold}.s2{color:#2b7}.s4{color:#c80}.s5{color:#c33}.summary{font-weight:600}nav li{margin:0}`;

export function renderDocsPage(doc: Json): string {
  const paths = Object.entries(doc.paths ?? {}) as Array<[string, Json]>;
  const tags: string[] = (doc.tags ?? []).map((t: Json) => t.name);
  const byTag = new Map<string, string[]>(tags.map((tag) => [tag, []]));
  const index: string[] = [];
  for (const [path, item] of paths) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operation(path, method, op, item.parameters ?? []));
      index.push(`<li><a href="#${escapeHtml(`${method}-${path}`)}">${method.toUpperCase()} ${escapeHtml(path)}</a> — ${escapeHtml(op.summary ?? '')}</li>`);
    }
  }
  const groups = [...byTag].filter(([, ops]) => ops.length > 0).map(([tag, ops]) => `<h2>${escapeHtml(tag)}</h2>${ops.join('\n')}`);
  const schemas = Object.entries(doc.components?.schemas ?? {}) as Array<[string, Json]>;
  const errorRows = (doc['x-error-codes'] ?? []).map((e: Json) => `<tr><td><code>${escapeHtml(e.code)}</code></td><td>${escapeHtml(e.description)}</td></tr>`);

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info?.title)} — API</title><style>${CSS}</style></head><body>
<h1>${escapeHtml(doc.info?.title)} <small>${escapeHtml(doc.info?.version)}</small></h1>
${markdown(doc.info?.description)}
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p>
<nav><h2>Endpoints</h2><ul>${index.join('')}</ul></nav>
${groups.join('\n')}
<h2 id="errors">Error codes (the key-protected /v1 API)</h2>
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead><tbody>${errorRows.join('')}</tbody></table>
<h2>Schemas</h2>
${schemas.map(([name, schema]) => `<section id="${anchor(name)}"><h3>${escapeHtml(name)}</h3>${markdown(schema.description)}${fieldTable(schema)}</section>`).join('\n')}
</body></html>
`;
}
