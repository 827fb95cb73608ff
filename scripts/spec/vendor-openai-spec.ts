// Cuts OpenAI's published OpenAPI document (openai/openai-openapi, openapi.json) down to the
// operations and event schemas this server implements, with every schema they reach, and writes
// it beside its provenance. The conformance tests validate our answers and events against it.
//
//   npx tsx scripts/spec/vendor-openai-spec.ts <path to openapi.json> <source commit>
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The OpenAI operations the server answers (README, docs/api.md), and the Files/Batch API it grows into. */
export const VENDORED_PATHS = [
  '/audio/speech',
  '/audio/transcriptions',
  '/audio/translations',
  '/embeddings',
  '/models',
  '/models/{model}',
  '/files',
  '/files/{file_id}',
  '/files/{file_id}/content',
  '/batches',
  '/batches/{batch_id}',
  '/batches/{batch_id}/cancel',
];

/**
 * Schemas no path names but our WebSocket sessions send and receive (GA unions, and the beta
 * events by prefix, since the beta has no union), and the error body. A trailing * is a prefix.
 */
export const VENDORED_SCHEMAS = ['ErrorResponse', 'RealtimeServerEvent', 'RealtimeClientEvent', 'RealtimeBetaServerEvent*', 'RealtimeBetaClientEvent*'];

const REF_PREFIX = '#/components/schemas/';
const OUT_DIR = 'test/fixtures/openai-openapi';

function collectRefs(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, into);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) into.add(value.slice(REF_PREFIX.length));
      else collectRefs(value, into);
    }
  }
}

export function subsetSpec(spec: { [key: string]: Json }): { [key: string]: Json } {
  const paths = spec.paths as { [path: string]: Json };
  const schemas = (spec.components as { schemas: { [name: string]: Json } }).schemas;
  const keptPaths: { [path: string]: Json } = {};
  for (const path of VENDORED_PATHS) {
    if (!(path in paths)) throw new Error(`the spec has no path ${path}`);
    keptPaths[path] = paths[path]!;
  }
  const pending = new Set<string>();
  collectRefs(keptPaths, pending);
  for (const name of VENDORED_SCHEMAS) {
    if (!name.endsWith('*')) pending.add(name);
    else for (const known of Object.keys(schemas)) if (known.startsWith(name.slice(0, -1))) pending.add(known);
  }
  const kept: { [name: string]: Json } = {};
  for (const name of pending) {
    pending.delete(name);
    const schema = schemas[name];
    if (schema === undefined) throw new Error(`the spec names a schema it lacks: ${name}`);
    kept[name] = schema;
    const next = new Set<string>();
    collectRefs(schema, next);
    for (const ref of next) if (!(ref in kept)) pending.add(ref);
  }
  const sortedSchemas = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => a.localeCompare(b)));
  return { openapi: spec.openapi ?? null, info: spec.info ?? null, paths: keptPaths, components: { schemas: sortedSchemas } };
}

function main(): void {
  const [source, commit] = process.argv.slice(2);
  if (!source || !/^[0-9a-f]{40}$/.test(commit ?? '')) {
    console.error('usage: vendor-openai-spec.ts <openapi.json> <40-hex commit of openai/openai-openapi>');
    process.exit(2);
  }
  const subset = subsetSpec(JSON.parse(readFileSync(source, 'utf8')));
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'openapi.subset.json'), `${JSON.stringify(subset, null, 1)}\n`);
  writeFileSync(
    join(OUT_DIR, 'source.json'),
    `${JSON.stringify({ repository: 'https://github.com/openai/openai-openapi', commit, file: 'openapi.json', licence: 'MIT', paths: VENDORED_PATHS, schemas: VENDORED_SCHEMAS }, null, 2)}\n`,
  );
  const count = Object.keys((subset.components as { schemas: object }).schemas).length;
  console.log(`wrote ${OUT_DIR}/openapi.subset.json: ${VENDORED_PATHS.length} paths, ${count} schemas`);
}

if (process.argv[1]?.endsWith('vendor-openai-spec.ts')) main();
