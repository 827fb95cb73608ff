/**
 * Our OpenAI routes against OpenAI's own OpenAPI document (test/http/openai-spec/openai-spec.ts):
 * every answer (each response_format, stream, each error path) must validate against the schema
 * the document gives the operation for that status and media type, and every request field the
 * document lists must be accepted with a valid value, or refused with a 400 whose `param` and
 * message name it and say why; values the document forbids must be refused with such a 400.
 * Field values come from the document itself (example, enum, default, bounds); the table below
 * gives only what it leaves open (a text, our model ids, the audio).
 *
 * Real models: whisper-tiny.en (transcriptions), whisper-base-pypi (translations, in the slow suite: tiny.en is
 * English-only), the Piper voice, MiniLM embeddings, Silero VAD (`chunking_strategy`); on a 1.1 s
 * clip and a two-word text, one request per value.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest, ManifestEntry } from '../../../src/inference/manifest.js';
import { SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { REAL_MODELS_DIR, realModel } from '../../helpers/real-models.js';
import { bearer, createTestApp, type TestApp } from '../../helpers/test-app.js';
import { type Answer, nonConformance, requestBody, resolve, responseFormats, SPEC, type SpecOperation, specOperation, specOperations } from './openai-spec.js';

type Json = Record<string, any>;

/** The operations of the document this server implements, with the model each test request names. */
const OPERATIONS: ReadonlyArray<{ method: string; path: string; model?: string }> = [
  { method: 'post', path: '/audio/transcriptions', model: 'whisper-tiny.en' },
  { method: 'post', path: '/audio/translations', model: 'whisper-base-pypi' },
  { method: 'post', path: '/audio/speech', model: 'piper-en_US-joe-medium' },
  { method: 'post', path: '/embeddings', model: 'minilm-embeddings' },
  { method: 'get', path: '/models' },
  { method: 'get', path: '/models/{model}', model: 'whisper-tiny.en' },
];
/**
 * The Files and Batch API: their answers are checked against the same document's schemas (OpenAIFile,
 * Batch, ListFilesResponse …) by their own tests, test/batches/files.test.ts and batches.test.ts,
 * which need their own fixtures (uploaded files, running batches) rather than this suite's rounds.
 */
const CHECKED_ELSEWHERE = ['/files', '/batches'];
const MODELS = ['whisper-tiny.en', 'whisper-base-pypi', 'piper-en_US-joe-medium', 'minilm-embeddings', 'silero-vad-v6'];

const CLIP = readFileSync(join(SPEECH_DIR, 'en_cards_001.wav')); // 1.1 s, "ten of clubs"
/** 3.5 s: a speaker sample of the length the document allows (2 to 10 s). */
const SPEAKER_SAMPLE = `data:audio/wav;base64,${readFileSync(join(SPEECH_DIR, 'en_cards_005.wav')).toString('base64')}`;

/** Valid values the document leaves open (no example, enum or default), by field name. */
const VALUES: Record<string, unknown[]> = {
  language: ['en'],
  languages: [['en']],
  keywords: [['clubs']],
  prompt: ['Playing cards.'],
  input: ['Ten of clubs.'],
  instructions: ['Speak calmly.'],
  dimensions: [384],
  known_speaker_names: [['agent']],
  known_speaker_references: [[SPEAKER_SAMPLE]],
};

/** Valid values refused because the server lacks the feature: the 400 must name the field and say so. */
const UNSUPPORTED: Record<string, Record<string, RegExp>> = {
  '/audio/transcriptions': {
    known_speaker_names: /diarization is not supported/,
    known_speaker_references: /diarization is not supported/,
    'response_format=diarized_json': /diarization is not supported/,
  },
  '/audio/speech': { 'voice={"id":"voice_1234"}': /custom voices are not supported/ },
};

/** Required fields the server gives a default instead (speech: the model's own voice). */
const DEFAULTED: Record<string, string[]> = { '/audio/speech': ['voice'] };

const LIMITS = { maxAudioBytes: 256 * 1024, maxEmbeddingChars: 2000 };

/**
 * The suite, for the operations at `paths` (the fast suite and a slow file share it: translations
 * need the multilingual whisper-base, ~2 CPU-s a request). Coverage of every operation, and the
 * fields that reach the model, run with transcriptions.
 */
export function describeSpecConformance(title: string, paths: readonly string[]): void {
  const RUN = OPERATIONS.filter(({ path }) => paths.includes(path));
  const withTranscriptions = paths.includes('/audio/transcriptions');
  describe(title, function () {
    this.timeout(120_000);
    let app: TestApp;

    before(async function () {
      const entries = MODELS.filter((id) => id === 'silero-vad-v6' || RUN.some((op) => op.model === id)).map((id) => realModel(id).entry);
      // `npm run test-models` installs them (MiniLM's tasks share the folder of its base model).
      const folder = (entry: ManifestEntry) => String((entry.options as { baseModel?: string } | undefined)?.baseModel ?? entry.id);
      if (entries.some((entry) => !entry || !existsSync(join(REAL_MODELS_DIR, folder(entry), '.installed.json')))) this.skip();
      const manifest: Manifest = { models: entries as ManifestEntry[] };
      app = await createTestApp({ manifest, modelsDir: REAL_MODELS_DIR, limits: LIMITS });
    });
    after(() => app?.close());

    /** Sends `fields` (and the required ones) to the operation as the OpenAI SDKs encode them; returns the raw answer. */
    async function send(op: SpecOperation, fields: Json = {}, options: { key?: string | null; model?: string; skipRequired?: boolean } = {}) {
      const declared = OPERATIONS.find((candidate) => candidate.path === op.path && candidate.method === op.method)!;
      const model = options.model ?? declared.model;
      const url = `/v1${op.path.replace('{model}', encodeURIComponent(model ?? ''))}`;
      let request = op.method === 'get' ? app.request.get(url) : app.request.post(url);
      if (options.key !== null) request = request.set('Authorization', bearer(options.key));
      const body = requestBody(op);
      if (body) {
        const required = options.skipRequired ? {} : requiredValues(body.schema, model);
        const all = { ...required, ...fields };
        if (body.mediaType === 'multipart/form-data') {
          for (const [name, value] of formParts(all)) {
            request =
              name === 'file'
                ? request.attach('file', value as Buffer, { filename: 'clip.wav', contentType: 'audio/wav' })
                : request.field(name, value as string);
          }
        } else {
          request = request.set('Content-Type', body.mediaType).send(JSON.stringify(all));
        }
      }
      const res = await request.buffer(true).parse(rawBody);
      return { status: res.status, contentType: String(res.headers['content-type'] ?? ''), bytes: res.body as Buffer } satisfies Answer;
    }

    function requiredValues(schema: Json, model: string | undefined): Json {
      return Object.fromEntries(
        ((schema.required ?? []) as string[]).map((name) => [
          name,
          name === 'model' ? model : name === 'file' ? CLIP : validValues(name, schema.properties[name])[0],
        ]),
      );
    }

    const expectConforms = (op: SpecOperation, answer: Answer, request: { responseFormat?: string; encodingFormat?: string } = {}) =>
      expect(nonConformance(op, answer, request), `${op.method.toUpperCase()} ${op.path} ${answer.status} ${answer.contentType}`).to.deep.equal([]);

    function expectFieldRefusal(op: SpecOperation, answer: Answer, field: string, reason?: RegExp) {
      const what = `${op.path} ${field}: ${answer.status} ${answer.bytes.toString('utf8').slice(0, 300)}`;
      expect(answer.status, what).to.equal(400);
      expectConforms(op, answer);
      const { error } = JSON.parse(answer.bytes.toString('utf8'));
      expect(String(error.param), what).to.match(new RegExp(`^${field}\\b`));
      expect(error.message, what).to.include(field);
      if (reason) expect(error.message, what).to.match(reason);
    }

    (withTranscriptions ? it : it.skip)('covers every operation of the document this server serves (by its own /openapi.json)', async () => {
      // Path parameters may be named otherwise (`/models/{id}` here, `{model}` there).
      const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
      const ours = Object.entries((await app.request.get('/openapi.json')).body.paths as Json).map(([path, item]) => [shape(path), item] as const);
      const serves = ({ method, path }: SpecOperation) => ours.some(([ourPath, item]) => ourPath === shape(`/v1${path}`) && item[method] !== undefined);
      const served = specOperations(Object.keys(SPEC.paths)).filter(serves);
      expect(served.length, 'operations found on both sides').to.be.at.least(OPERATIONS.length);
      const covered = (op: SpecOperation) =>
        OPERATIONS.some(({ method, path }) => method === op.method && path === op.path) || CHECKED_ELSEWHERE.some((prefix) => op.path.startsWith(prefix));
      expect(served.filter((op) => !covered(op)).map(({ method, path }) => `${method.toUpperCase()} ${path}`)).to.deep.equal([]);
    });

    describe('every answer of every format validates against its operation', () => {
      for (const { method, path } of RUN) {
        const op = specOperation(method, path);
        const formats = responseFormats(op);
        for (const format of formats.length > 0 ? formats : [undefined]) {
          const unsupported = UNSUPPORTED[path]?.[`response_format=${format}`];
          it(`${method.toUpperCase()} ${path}${format ? ` response_format=${format}` : ''}${unsupported ? ': a 400 naming the field' : ''}`, async () => {
            const answer = await send(op, format ? { response_format: format } : {});
            if (unsupported) return expectFieldRefusal(op, answer, 'response_format', unsupported);
            expect(answer.status, answer.bytes.toString('utf8').slice(0, 300)).to.equal(200);
            expectConforms(op, answer, { responseFormat: format });
          });
        }
        // Streaming, where the document has an event stream: `stream: true` or `stream_format: "sse"`.
        const streamed = op.operation.responses?.['200']?.content?.['text/event-stream'];
        if (streamed) {
          const properties = requestBody(op)!.schema.properties as Json;
          const fields = properties.stream ? { stream: true } : { stream_format: 'sse' };
          it(`${method.toUpperCase()} ${path} ${JSON.stringify(fields)}: each event validates`, async () => {
            const answer = await send(op, fields);
            expect(answer.status, answer.bytes.toString('utf8').slice(0, 300)).to.equal(200);
            expect(answer.contentType).to.match(/^text\/event-stream/);
            expectConforms(op, answer);
          });
        }
      }
    });

    describe('every error answer is an ErrorResponse with param', () => {
      for (const { method, path, model } of RUN) {
        const op = specOperation(method, path);
        it(`${method.toUpperCase()} ${path}: 401 without a key and with a wrong one (param null)`, async () => {
          for (const key of [null, 'wrong-key-0000000000']) {
            const answer = await send(op, {}, { key });
            expect(answer.status).to.equal(401);
            expectConforms(op, answer);
            expect(JSON.parse(answer.bytes.toString('utf8')).error.param).to.equal(null);
          }
        });
        if (model !== undefined) {
          it(`${method.toUpperCase()} ${path}: 404 for an unknown model`, async () => {
            const answer = await send(op, {}, { model: 'no-such-model' });
            expect(answer.status).to.equal(404);
            expectConforms(op, answer);
          });
        }
        const body = requestBody(op);
        for (const field of (body?.schema.required ?? []) as string[]) {
          if (DEFAULTED[path]?.includes(field)) continue;
          it(`${method.toUpperCase()} ${path}: 400 without "${field}", naming it`, async () => {
            const { [field]: _left, ...others } = requiredValues(body!.schema, model);
            expectFieldRefusal(op, await send(op, others, { skipRequired: true }), field);
          });
        }
      }

      (withTranscriptions ? it : it.skip)(
        '413s are ErrorResponses too: audio over the limit, speech input over its characters, an embeddings batch over its characters',
        async () => {
          const cases: Array<[SpecOperation, Json]> = [
            [specOperation('post', '/audio/transcriptions'), { file: Buffer.alloc(LIMITS.maxAudioBytes + 1) }],
            [specOperation('post', '/audio/speech'), { input: 'a '.repeat(6000) }],
            [specOperation('post', '/embeddings'), { input: ['a '.repeat(600), 'b '.repeat(600)] }],
          ];
          for (const [op, fields] of cases) {
            const answer = await send(op, fields);
            expect(answer.status, `${op.path} ${answer.bytes.toString('utf8')}`).to.equal(413);
            expectConforms(op, answer);
          }
        },
      );
    });

    describe('every request field the document lists is accepted, or refused by name with the reason', () => {
      for (const { method, path } of RUN) {
        const op = specOperation(method, path);
        const body = requestBody(op);
        if (!body) continue;
        // Every request sends model and file; the formats are above.
        const fields = Object.entries(body.schema.properties as Json).filter(([field]) => !['model', 'file', 'response_format'].includes(field));
        // Accepted values go together, one request per round (a field's first value, then its value of another
        // shape): one inference covers every field, and a refusal names the field at fault. A value refused by
        // design is sent alone (it costs no inference).
        const valuesOf = new Map(fields.map(([field, schema]) => [field, unique([...validValues(field, schema), ...unsupportedValues(path, field, schema)])]));
        const rounds = Math.max(...[...valuesOf.values()].map((values) => values.length));
        for (let round = 0; round < rounds; round++) {
          const chosen = [...valuesOf].filter(([, values]) => values.length > round).map(([field, values]) => [field, values[round]] as const);
          const refusedBy = ([field, value]: readonly [string, unknown]) =>
            UNSUPPORTED[path]?.[field] ?? UNSUPPORTED[path]?.[`${field}=${JSON.stringify(value)}`];
          it(`${path}: ${chosen.map(([field, value]) => `${field}=${shortJson(value)}`).join(' ')}`, async () => {
            const accepted = Object.fromEntries(chosen.filter((pair) => !refusedBy(pair)));
            if (Object.keys(accepted).length > 0) {
              const answer = await send(op, accepted);
              expect(answer.status, answer.bytes.toString('utf8').slice(0, 300)).to.equal(200);
              expectConforms(op, answer, { encodingFormat: accepted.encoding_format as string | undefined });
            }
            for (const pair of chosen.filter(refusedBy)) expectFieldRefusal(op, await send(op, { [pair[0]]: pair[1] }), pair[0], refusedBy(pair));
          });
        }
        for (const [field, schema] of Object.entries(body.schema.properties as Json)) {
          if (field === 'model' || field === 'file') continue; // their wrong values are the 404 and 400s above
          const wrong = wrongValues(schema, body.mediaType);
          if (wrong.length > 0) {
            it(`${path} ${field}: refuses ${wrong.map((value) => shortJson(value)).join(', ')} with a 400 naming it`, async () => {
              for (const value of wrong) expectFieldRefusal(op, await send(op, { [field]: value }), field);
            });
          }
        }
        it(`${path}: the document or VALUES gives every field a value`, () => {
          expect([...valuesOf].filter(([, values]) => values.length === 0).map(([field]) => field)).to.deep.equal([]);
        });
      }
    });

    if (withTranscriptions)
      describe("OpenAI's fields reach the model, or are refused with the reason", () => {
        const op = specOperation('post', '/audio/transcriptions');
        const refusal = async (fields: Json) => JSON.parse((await send(op, fields)).bytes.toString('utf8')).error;

        it('languages[] is the language (the English-only model refuses French by name); several are refused', async () => {
          expect(await refusal({ languages: ['fr'] })).to.include({ param: 'language' });
          const several = await refusal({ languages: ['en', 'fr'] });
          expect(several).to.include({ param: 'languages' });
          expect(several.message).to.match(/only one is supported/);
        });

        it('chunking_strategy server_vad settings are checked as VadConfig: type, bounds, no other keys', async () => {
          expect(await refusal({ chunking_strategy: { type: 'semantic' } })).to.include({ param: 'chunking_strategy.type' });
          expect(await refusal({ chunking_strategy: { type: 'server_vad', threshold: 'high' } })).to.include({ param: 'chunking_strategy.threshold' });
          expect(await refusal({ chunking_strategy: { type: 'server_vad', eagerness: 'low' } })).to.include({ param: 'chunking_strategy' });
          expect(await refusal({ chunking_strategy: 'manual' })).to.include({ param: 'chunking_strategy' });
        });

        it('keywords[] are hotwords: sending both is refused as one option twice', async () => {
          const error = await refusal({ keywords: ['clubs'], hotwords: 'spades' });
          expect(error).to.include({ param: 'keywords' });
        });
      });
  });
}

/**
 * What the document says a field may be (its example, enum values, an object of its defaults,
 * bounds; else VALUES): one value of each JSON shape the field takes (`"auto"` and a `server_vad`
 * object), the first that is not the default (which the other requests use already), so each
 * accepted shape costs one inference.
 */
function validValues(field: string, schema: Json): unknown[] {
  const all = VALUES[field] ?? samples(schema);
  const fallback = JSON.stringify(resolve(schema).default);
  const shape = (value: unknown) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
  const byShape = new Map<string, unknown>();
  for (const value of [...all.filter((value) => JSON.stringify(value) !== fallback), ...all]) {
    if (!byShape.has(shape(value))) byShape.set(shape(value), value);
  }
  return [...byShape.values()];
}

/** The values of a field the server refuses by design, each checked (they cost no inference). */
function unsupportedValues(path: string, field: string, schema: Json): unknown[] {
  const refused = UNSUPPORTED[path] ?? {};
  if (refused[field]) return [];
  return (VALUES[field] ?? samples(schema)).filter((value) => refused[`${field}=${JSON.stringify(value)}`]);
}

function samples(raw: Json): unknown[] {
  const schema = resolve(raw);
  if (Array.isArray(schema.enum)) return schema.enum;
  // (An example of an array is sometimes its text: "['This is a test.']".)
  if (schema.example !== undefined && !(typeof schema.example === 'string' && schema.example.startsWith('['))) return [schema.example];
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) return unique(branches.flatMap(samples));
  switch (schema.type) {
    case 'boolean':
      return [true, false];
    case 'number':
    case 'integer':
      return unique([schema.default, schema.maximum, schema.minimum].filter((value) => value !== undefined));
    case 'array': {
      const items = samples(schema.items ?? {});
      return items.length > 0 ? items.map((item) => [item]) : schema.default !== undefined ? [schema.default] : [];
    }
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Json);
      const object = Object.fromEntries(
        properties.map(([name, property]) => [name, resolve(property).default ?? samples(property)[0]]).filter(([, value]) => value !== undefined),
      );
      return [object];
    }
  }
  return schema.default !== undefined ? [schema.default] : [];
}

/** Values the document forbids: outside an enum, of another JSON type, past a bound. Form fields are text, so only what text can be. */
function wrongValues(raw: Json, mediaType: string): unknown[] {
  const schema = resolve(raw);
  const types = jsonTypes(schema);
  const form = mediaType === 'multipart/form-data';
  const wrong: unknown[] = [];
  if (types.has('enum') && !types.has('string')) wrong.push('manual');
  if (!form && !types.has('string') && !types.has('enum')) wrong.push('x');
  if (!form && (types.has('string') || types.has('enum')) && !types.has('number') && !types.has('integer')) wrong.push(5);
  if (form && (types.has('number') || types.has('integer'))) wrong.push('abc');
  if (form && types.has('boolean')) wrong.push('maybe');
  if (form && types.has('array-of-enum')) wrong.push(['manual']);
  if (typeof schema.maximum === 'number') wrong.push(schema.maximum * 10);
  return wrong;
}

/** The JSON types a schema accepts: `enum` for a string of a closed set, `string` for any string. */
function jsonTypes(raw: Json): Set<string> {
  const schema = resolve(raw);
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) return new Set(branches.flatMap((branch) => [...jsonTypes(branch)]));
  if (Array.isArray(schema.enum)) return new Set(['enum']);
  if (schema.type === 'array' && Array.isArray(resolve(schema.items ?? {}).enum)) return new Set(['array', 'array-of-enum']);
  return new Set(schema.type === undefined ? [] : [schema.type]);
}

/** The OpenAI SDKs' form encoding: arrays as repeated `name[]`, objects as `name[key]`, the rest as text. */
function formParts(fields: Json): Array<[string, unknown]> {
  return Object.entries(fields).flatMap(([name, value]): Array<[string, unknown]> => {
    if (Buffer.isBuffer(value)) return [[name, value]];
    if (Array.isArray(value)) return value.map((item) => [`${name}[]`, String(item)]);
    if (typeof value === 'object' && value !== null) return Object.entries(value).map(([key, item]) => [`${name}[${key}]`, String(item)]);
    return [[name, String(value)]];
  });
}

/** Every answer as its bytes, whatever its type (supertest parses only some). */
function rawBody(res: any, callback: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

function unique(values: unknown[]): unknown[] {
  return [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
