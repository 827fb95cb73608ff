/**
 * Keeps the hand-written client in line with the server's /openapi.json, in two halves:
 *
 * - Requests: every method is called with every input field set, through a recording fetch;
 *   each recorded request must match a documented path and method, send the key where the
 *   operation is secured, and send only documented query parameters and body fields (JSON or
 *   multipart), each of the documented type, with every required field present.
 * - Answers: `Shape<T>` turns each client type into a field → kind table at compile time (a
 *   field added to or removed from a client type fails the typecheck until its table here is
 *   updated), and each table must equal its schema in the document: the same fields, kinds and
 *   optionality. Each call's documented 2xx schema must be the one its client type is compared with.
 *
 * Compared, not generated: the client's types are written for people (overloads by
 * `responseFormat`, camelCase inputs, JSDoc), which a generator from the document would lose,
 * and a generator is a dependency or a large script; this test catches the drift instead.
 */
import { expect } from 'chai';
import { InferenceClient, type ErrorCode } from '../../src/client/index.js';
import type {
  Classification,
  ClassificationBatch,
  Label,
  ModelInfo,
  Task as ClientTask,
  TokenLogprob,
  DurationUsage,
  TranscriptSegment,
  TranscriptTextDelta,
  TranscriptWord,
  TranscriptTextDone,
  Transcript,
  Transcription,
  Translation,
  User,
  VerboseTranscription,
} from '../../src/client/types.js';
import { TASKS, type Task as ServerTask } from '../../src/inference/tasks.js';
import { serveTestApp } from './serve-test-app.js';

type Json = Record<string, any>;

/** A JSON-ish kind per field; `?` marks an optional field. */
type Kind<V> = [V] extends [string]
  ? 'string'
  : [V] extends [number]
    ? 'number'
    : [V] extends [boolean]
      ? 'boolean'
      : [V] extends [readonly unknown[]]
        ? 'array'
        : [V] extends [string | null]
          ? 'string|null'
          : [V] extends [number | null]
            ? 'number|null'
            : [V] extends [readonly unknown[] | null]
              ? 'null|array'
              : 'object';
/** The declared fields of T, without an index signature. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };
type Shape<T> = { [K in KnownKeys<T>]-?: undefined extends T[K] ? `${Kind<Exclude<T[K], undefined>>}?` : Kind<T[K]> };

/** Each client answer type as its shape, and the schema component it must equal. */
const ANSWER_TYPES: Array<[component: string, shape: Record<string, string>]> = [
  ['User', { id: 'number', name: 'string', email: 'string', created_at: 'string', updated_at: 'string' } satisfies Shape<User>],
  [
    'ModelInfo',
    {
      id: 'string',
      object: 'string',
      created: 'number',
      owned_by: 'string',
      task: 'string',
      engine: 'string',
      description: 'string?',
      license: 'string?',
      default: 'boolean?',
      installed: 'boolean',
      loaded: 'boolean?',
      install: 'string?',
      alias_of: 'string|null?',
      state: 'string?',
      memory_bytes: 'number|null?',
      last_used_at: 'number|null?',
      size_bytes: 'number|null?',
      size_estimated: 'boolean?',
      languages: 'null|array?',
      real_weights_run_here: 'boolean?',
      voices: 'array?',
    } satisfies Shape<ModelInfo>,
  ],
  ['ClassificationResult', { labels: 'array' } satisfies Shape<Classification>],
  ['ClassificationBatchResult', { results: 'array' } satisfies Shape<ClassificationBatch>],
  ['Label', { label: 'string', confidence: 'number' } satisfies Shape<Label>],
  ['TranslationResult', { translation: 'string' } satisfies Shape<Translation>],
  ['OpenAITranscription', { text: 'string', logprobs: 'array?', usage: 'object' } satisfies Shape<Transcription>],
  ['TokenLogprob', { token: 'string', logprob: 'number', bytes: 'array' } satisfies Shape<TokenLogprob>],
  ['DurationUsage', { type: 'string', seconds: 'number' } satisfies Shape<DurationUsage>],
  ['Transcript', { id: 'string', object: 'string', created: 'number', model: 'string', transcript: 'string' } satisfies Shape<Transcript>],
  [
    'OpenAIVerboseTranscription',
    {
      task: 'string',
      language: 'string',
      duration: 'number',
      text: 'string',
      segments: 'array',
      words: 'array?',
      usage: 'object',
    } satisfies Shape<VerboseTranscription>,
  ],
  [
    'TranscriptSegment',
    {
      id: 'number',
      seek: 'number',
      start: 'number',
      end: 'number',
      text: 'string',
      tokens: 'array',
      temperature: 'number',
      avg_logprob: 'number',
      compression_ratio: 'number',
      no_speech_prob: 'number',
    } satisfies Shape<TranscriptSegment>,
  ],
  ['TranscriptWord', { word: 'string', start: 'number', end: 'number' } satisfies Shape<TranscriptWord>],
  ['TranscriptTextDelta', { type: 'string', delta: 'string', logprobs: 'array?' } satisfies Shape<TranscriptTextDelta>],
  ['TranscriptTextDone', { type: 'string', text: 'string', logprobs: 'array?' } satisfies Shape<TranscriptTextDone>],
];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The client is compiled and packed on its own, so it spells out its Task union; it must be the
 * server's task table (a row added there fails the typecheck here until the client has it).
 */
const CLIENT_TASKS_ARE_THE_SERVERS: Same<ClientTask, ServerTask> = true;

/** Every ErrorCode of the client, once (a code missing here or there fails the typecheck). */
const CLIENT_CODES: Record<ErrorCode, true> = {
  invalid_request: true,
  invalid_json: true,
  unauthorized: true,
  model_not_allowed: true,
  rate_limited: true,
  not_found: true,
  model_not_found: true,
  wrong_model_task: true,
  method_not_allowed: true,
  conflict: true,
  request_timeout: true,
  payload_too_large: true,
  unsupported_media_type: true,
  undecodable_audio: true,
  model_not_installed: true,
  model_unavailable: true,
  model_memory_exhausted: true,
  admin_required: true,
  inference_failed: true,
  server_busy: true,
  internal_error: true,
  stream_interrupted: true,
  too_many_sessions: true,
};

interface Recorded {
  method: string;
  url: URL;
  authorized: boolean;
  contentType: string | null;
  /** JSON body, or the multipart fields (values as sent: strings, or a File). */
  body?: Record<string, unknown>;
  multipart: boolean;
}

/** Answers every request with an empty-ish 200 of the type the client expects, recording it. */
function recordingFetch(recorded: Recorded[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const contentType = request.headers.get('Content-Type');
    const multipart = contentType?.startsWith('multipart/form-data') === true;
    let body: Record<string, unknown> | undefined;
    if (multipart) {
      body = {};
      for (const [name, value] of (await request.formData()).entries()) body[name] = value;
    } else if (contentType === 'application/json') body = (await request.json()) as Record<string, unknown>;
    recorded.push({ method: request.method, url: new URL(request.url), authorized: request.headers.has('Authorization'), contentType, body, multipart });
    const url = new URL(request.url);
    if (url.searchParams.get('stream') === 'true' || (body && body.stream === 'true')) {
      return new Response('data: {"type":"transcript.text.done","text":""}\n\n', { headers: { 'Content-Type': 'text/event-stream' } });
    }
    if (request.method === 'DELETE' && !url.pathname.endsWith('/load')) return new Response(null, { status: 204 });
    return new Response(url.pathname === '/v1/models' ? '{"data":[]}' : '{}', { headers: { 'Content-Type': 'application/json' } });
  };
}

/** Calls every client method with every input field set. */
async function callEverything(client: InferenceClient): Promise<void> {
  const user = { name: 'Ann', email: 'ann@example.org' };
  const file = new File([new Uint8Array([1, 2, 3])], 'a.wav', { type: 'audio/wav' });
  const transcription = {
    model: 'm',
    file,
    language: 'en',
    task: 'transcribe' as const,
    timestampGranularities: ['segment' as const, 'word' as const],
    vadFilter: true,
    minSilenceDurationMs: 500,
    speechPadMs: 100,
    vadThreshold: 0.4,
    prompt: 'p',
    temperature: 0,
  };
  await client.users.list();
  await client.users.get(1);
  await client.users.create(user);
  await client.users.update(1, user);
  await client.users.delete(1);
  await client.models.list({ installed: true });
  await client.models.get('m');
  await client.models.load('m');
  await client.models.unload('m');
  await client.classify({ model: 'm', query: 'q', labels: ['a'] });
  await client.classify({ model: 'm', query: ['q', 'r'] });
  await client.translate({ model: 'm', text: 't', targetLanguage: 'es', sourceLanguage: 'en' });
  await client.transcribe({ ...transcription, responseFormat: 'verbose_json' });
  await client.transcribe({ ...transcription, responseFormat: 'transcript' });
  for await (const _event of client.transcribeStream(transcription));
  const speech = await client.speak({ model: 'm', input: 'i', voice: 'v', speed: 1, format: 'pcm', sampleRate: 16000 });
  await speech.arrayBuffer();
}

describe('client types and requests match /openapi.json', () => {
  let doc: Json;
  const recorded: Recorded[] = [];

  before(async () => {
    const served = await serveTestApp();
    try {
      doc = (await fetch(`${served.baseUrl}/openapi.json`).then((response) => response.json())) as Json;
    } finally {
      await served.close();
    }
    await callEverything(new InferenceClient({ baseUrl: 'http://server.test', apiKey: 'k'.repeat(16), fetch: recordingFetch(recorded) }));
  });

  const resolve = (schema: Json): Json => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
  /** The operation a recorded request is for: a documented path template and method. */
  const operationOf = (request: Recorded): { path: string; operation: Json } | undefined => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (pattern.test(request.url.pathname) && item[request.method.toLowerCase()]) return { path, operation: item[request.method.toLowerCase()] };
    }
    return undefined;
  };
  function schemaKind(raw: Json): string {
    const schema = resolve(raw);
    const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (variants)
      return variants
        .map((variant) => schemaKind(variant))
        .sort()
        .reverse()
        .join('|');
    return schema.type === 'integer' ? 'number' : schema.type;
  }

  it('makes the requests it should (every method called)', () => {
    expect(recorded.map((request) => `${request.method} ${request.url.pathname}`)).to.deep.equal([
      'GET /users',
      'GET /users/1',
      'POST /users',
      'PUT /users/1',
      'DELETE /users/1',
      'GET /v1/models',
      'GET /v1/models/m',
      'POST /v1/models/m/load',
      'DELETE /v1/models/m/load',
      'POST /v1/classifications',
      'POST /v1/classifications',
      'POST /v1/engines/m/translate',
      'POST /v1/audio/transcriptions',
      'POST /v1/transcriptions',
      'POST /v1/audio/transcriptions',
      'POST /v1/text-to-speech',
    ]);
  });

  it('every request is a documented path and method, with the key exactly where the operation is secured', () => {
    for (const request of recorded) {
      const found = operationOf(request);
      expect(found, `${request.method} ${request.url.pathname}`).to.not.equal(undefined);
      expect(request.authorized, `${request.method} ${found!.path} sends the key`).to.equal(found!.operation.security !== undefined);
    }
  });

  it('sends only documented query parameters', () => {
    for (const request of recorded) {
      const { operation } = operationOf(request)!;
      const documented = ((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === 'query');
      for (const [name, value] of request.url.searchParams) {
        const parameter = documented.find((candidate) => candidate.name === name);
        expect(parameter, `?${name} of ${request.url.pathname}`).to.not.equal(undefined);
        if (parameter!.schema.enum) expect(parameter!.schema.enum).to.include(value);
      }
    }
  });

  it('sends documented body fields of the documented types, with every required field', () => {
    for (const request of recorded.filter((candidate) => candidate.body)) {
      const { path, operation } = operationOf(request)!;
      const mediaType = request.multipart ? 'multipart/form-data' : 'application/json';
      const documented = resolve(operation.requestBody?.content?.[mediaType]?.schema);
      expect(documented, `${path} documents a ${mediaType} body`).to.not.equal(undefined);
      // A body of several shapes lists ours first; the others are other APIs' (LibreTranslate's, TEI's).
      const schema = documented.anyOf ? resolve(documented.anyOf[0]) : documented;
      for (const required of schema.required as string[]) expect(request.body, `${path} sends required "${required}"`).to.have.property(required);
      for (const [field, value] of Object.entries(request.body!)) {
        const property = schema.properties[field];
        if (!property) {
          // Accepted but not a schema property: the operation must say so (OpenAI's timestamp_granularities[]).
          expect(operation.description, `${path}: "${field}" is neither in the schema nor named by the operation`).to.include(field);
          continue;
        }
        const kind = schemaKind(property);
        if (request.multipart) {
          // Form values are strings; numbers must parse, enums must match.
          if (field === 'file') expect(value).to.be.instanceOf(Blob);
          else if (kind === 'number') expect(Number(value), `${path} "${field}"`).to.be.a('number').and.not.be.NaN;
          else expect(value, `${path} "${field}"`).to.be.a('string');
        } else {
          const actual = Array.isArray(value) ? 'array' : typeof value;
          expect(kind.split('|'), `${path} "${field}"`).to.include(actual);
        }
        if (property.enum) expect(property.enum, `${path} "${field}"`).to.include(value);
      }
    }
  });

  for (const [component, shape] of ANSWER_TYPES) {
    it(`the client's type of ${component} has its schema's fields, kinds and optionality`, () => {
      const schema = doc.components.schemas[component] as Json;
      expect(schema, component).to.not.equal(undefined);
      const documented = Object.fromEntries(
        Object.entries(schema.properties as Record<string, Json>).map(([field, property]) => [
          field,
          `${schemaKind(property)}${(schema.required as string[]).includes(field) ? '' : '?'}`,
        ]),
      );
      expect(shape).to.deep.equal(documented);
    });
  }

  it('each call’s documented answer is the schema its client type is compared with', () => {
    const answer = (method: string, path: string, status = '200', mediaType = 'application/json') =>
      doc.paths[path][method].responses[status].content[mediaType];
    const ref = (schema: Json) => (schema.$ref as string).split('/').pop();
    expect(ref(answer('get', '/users').schema.items)).to.equal('User');
    expect(ref(answer('get', '/users/{id}').schema)).to.equal('User');
    expect(ref(answer('post', '/users', '201').schema)).to.equal('User');
    expect(ref(answer('put', '/users/{id}').schema)).to.equal('User');
    expect(doc.paths['/users/{id}'].delete.responses['204']).to.not.equal(undefined);
    const list = resolve(answer('get', '/v1/models').schema);
    expect(ref(list.properties.data.items)).to.equal('ModelInfo');
    expect(ref(answer('get', '/v1/models/{id}').schema)).to.equal('ModelInfo');
    const classification = answer('post', '/v1/classifications').schema;
    expect((classification.anyOf as Json[]).map(ref)).to.deep.equal(['ClassificationResult', 'ClassificationBatchResult']);
    expect(ref(resolve(classification.anyOf[0]).properties.labels.items)).to.equal('Label');
    expect(ref(resolve(classification.anyOf[1]).properties.results.items)).to.equal('ClassificationResult');
    expect(ref(answer('post', '/v1/engines/{model}/translate').schema)).to.equal('TranslationResult');
    expect(ref(answer('post', '/v1/transcriptions').schema)).to.equal('Transcript');
    const transcription = doc.paths['/v1/audio/transcriptions'].post.responses['200'].content;
    expect(transcription['application/json'].schema.oneOf.map(ref)).to.deep.equal(['OpenAITranscription', 'OpenAIVerboseTranscription']);
    expect(transcription['text/event-stream'].itemSchema.oneOf.map(ref)).to.deep.equal(['TranscriptTextDelta', 'TranscriptTextDone']);
    expect(Object.keys(transcription)).to.include.members(['text/plain', 'text/vtt']);
    expect(Object.keys(doc.paths['/v1/text-to-speech'].post.responses['200'].content)).to.include.members(['audio/mpeg', 'audio/wav', 'audio/pcm']);
  });

  it('ModelInfo.task lists the tasks of the task table, which the client’s Task union equals', () => {
    expect(CLIENT_TASKS_ARE_THE_SERVERS).to.equal(true);
    expect(doc.components.schemas.ModelInfo.properties.task.enum).to.deep.equal([...TASKS]);
  });

  it('the events’ type literals are the documented ones', () => {
    expect(doc.components.schemas.TranscriptTextDelta.properties.type.const).to.equal('transcript.text.delta' satisfies TranscriptTextDelta['type']);
    expect(doc.components.schemas.TranscriptTextDone.properties.type.const).to.equal('transcript.text.done' satisfies TranscriptTextDone['type']);
  });

  it('ErrorCode lists every code the server sends (x-error-codes), plus the client’s stream_interrupted', () => {
    const sent = (doc['x-error-codes'] as Array<{ code: string }>).map((entry) => entry.code).filter((code) => code !== 'client_closed'); // logged only, never sent
    expect(Object.keys(CLIENT_CODES).sort()).to.deep.equal([...sent, 'stream_interrupted'].sort());
  });
});
