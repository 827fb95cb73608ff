/**
 * The OpenAPI 3.1 description of every route, served at /openapi.json and rendered at /docs.
 * Tests check that every registered route and every error code appears here, so this file
 * cannot silently fall behind the routers.
 */
import { DEFAULT_LIMITS } from '../config/load-config.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { schemas } from './openapi-schemas.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const MB = (bytes: number) => `${bytes / (1024 * 1024)} MB`;
const codeList = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``).join(', ');

/** Area A errors: short plain text (SPEC "Errors" 1). The codes are for reference; the body has none. */
function textError(description: string, example: string, codes: readonly ErrorCode[]): Json {
  return { description, 'x-error-codes': codes, content: { 'text/plain': { schema: { type: 'string' }, example } } };
}

/** Area B errors: `{"error": {"message", "type", "code"}}` with the codes this response can carry. */
function jsonError(summary: string, codes: readonly ErrorCode[]): Json {
  return {
    description: `${summary} Codes: ${codeList(codes)}.`,
    'x-error-codes': codes,
    content: { 'application/json': { schema: ref('Error') } },
  };
}

const AREA_A_ERRORS = {
  invalid: textError('Invalid input: malformed JSON, a missing or invalid field, or a malformed id (not a positive integer).', '"email" must be an email address such as ann@example.org', ['invalid_request', 'invalid_json']),
  notFound: textError('No user has this id.', 'user 42 not found', ['not_found']),
  conflict: textError('Another user already has this email (compared case-insensitively).', 'a user with email ann@example.org already exists', ['conflict']),
  tooLarge: textError(`The JSON body is larger than ${MB(DEFAULT_LIMITS.maxJsonBytes)}.`, 'Request body is too large', ['payload_too_large']),
  mediaType: textError('The body is not sent as application/json.', 'Content-Type must be application/json, got text/plain', ['unsupported_media_type']),
  locked: textError('Another process (e.g. `npm run keys`) has held the database write lock for over 5 s; retry after `Retry-After` seconds.', 'The database is locked by another process; retry in a moment', ['server_busy']),
  server: textError('Unexpected server error. The body is a generic message; the server log has the details under the X-Request-Id of the response.', 'Internal Server Error', ['internal_error']),
};

const V1_COMMON = {
  '401': jsonError('Missing, malformed, unknown or revoked API key. The response carries `WWW-Authenticate: Bearer`.', ['unauthorized']),
  '500': jsonError('Unexpected server error; details are in the server log under the X-Request-Id of the response.', ['internal_error']),
  '503': jsonError('The model is known but not installed (the message names the install command), failed to load, or failed while answering (retrying usually works); or too many requests of this task are already in progress or queued (`server_busy`, with a `Retry-After` header in seconds).', ['model_not_installed', 'model_unavailable', 'inference_failed', 'server_busy']),
};
const MODEL_404 = jsonError('The model id is not in the manifest (GET /v1/models lists them).', ['model_not_found']);
const JSON_ONLY_415 = jsonError('The body is not sent as application/json.', ['unsupported_media_type']);

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'User id: a positive integer. Anything else is answered with 400.',
  schema: { type: 'integer', minimum: 1 },
};

const jsonBody = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });
const jsonOk = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });
const secured = { security: [{ bearerAuth: [] }] };

const AUDIO_BODY_TYPES = ['audio/mpeg', 'audio/wav', 'audio/flac', 'audio/ogg'];
const audioParameters = ['model', 'language', 'task'].flatMap((name) => {
  const header = `X-${name[0]!.toUpperCase()}${name.slice(1)}`;
  const description = {
    model: 'Speech-to-text model id (required with a raw audio body).',
    language: 'Spoken language as a short code such as `en`; detected when omitted (multilingual models).',
    task: '`transcribe` (default) or `translate` (into English, Whisper models).',
  }[name];
  const schema = name === 'task' ? { type: 'string', enum: ['transcribe', 'translate'] } : { type: 'string' };
  return [
    { name, in: 'query', required: false, description, schema },
    { name: header, in: 'header', required: false, description: `Same as the \`${name}\` query parameter.`, schema },
  ];
});

function transcriptionOperation(summary: string, description: string): Json {
  return {
    tags: ['speech to text'],
    summary,
    description,
    ...secured,
    parameters: audioParameters,
    requestBody: {
      required: true,
      description: `The audio file, at most ${MB(DEFAULT_LIMITS.maxAudioBytes)}.`,
      content: {
        ...Object.fromEntries(AUDIO_BODY_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
        'multipart/form-data': { schema: ref('TranscriptionForm') },
      },
    },
    responses: {
      '200': jsonOk('The transcript.', ref('Transcript')),
      '400': jsonError('Missing model, invalid field, undecodable audio or a model of another task.', ['invalid_request', 'undecodable_audio', 'wrong_model_task']),
      ...V1_COMMON,
      '404': MODEL_404,
      '413': jsonError(`The audio is larger than ${MB(DEFAULT_LIMITS.maxAudioBytes)} or longer than ${DEFAULT_LIMITS.maxAudioSeconds / 60} minutes.`, ['payload_too_large']),
      '415': jsonError('The Content-Type is neither a supported audio type nor multipart/form-data.', ['unsupported_media_type']),
    },
  };
}

/** The OpenAI SDK form: multipart `file` + `model`, with a choice of answer formats. */
function openAiTranscriptionOperation(summary: string, description: string): Json {
  const base = transcriptionOperation(summary, description);
  const content = (base.requestBody as Json).content as Json;
  return {
    ...base,
    requestBody: { ...(base.requestBody as Json), content: { ...content, 'multipart/form-data': { schema: ref('OpenAITranscriptionForm') } } },
    responses: {
      ...(base.responses as Json),
      '200': {
        description: 'By `response_format`: `json` (default) `{text}`; `verbose_json` adds task, language, duration and segments; `text` the plain transcript; `srt` / `vtt` subtitles.',
        content: {
          'application/json': { schema: { oneOf: [ref('OpenAITranscription'), ref('OpenAIVerboseTranscription')] } },
          'text/plain': { schema: { type: 'string' } },
          'text/vtt': { schema: { type: 'string' } },
        },
      },
    },
  };
}

function speechOperation(summary: string, description: string, schema: string): Json {
  return {
    tags: ['text to speech'],
    summary,
    description,
    ...secured,
    requestBody: jsonBody(schema),
    responses: {
      '200': {
        description: 'The spoken audio, streamed. MP3 unless `response_format` is `wav`.',
        content: {
          'audio/mpeg': { schema: { type: 'string', contentMediaType: 'audio/mpeg' } },
          'audio/wav': { schema: { type: 'string', contentMediaType: 'audio/wav' } },
        },
      },
      '400': jsonError('Malformed JSON, a missing or invalid field, or a model of another task.', ['invalid_request', 'invalid_json', 'wrong_model_task']),
      ...V1_COMMON,
      '404': MODEL_404,
      '413': jsonError(`The body is over ${MB(DEFAULT_LIMITS.maxJsonBytes)} or \`input\` is over ${DEFAULT_LIMITS.maxSpeechInputChars} characters.`, ['payload_too_large']),
      '415': JSON_ONLY_415,
    },
  };
}

const paths: Json = {
  '/': {
    get: {
      tags: ['service'],
      summary: 'Greeting (liveness check)',
      responses: { '200': { description: 'A short greeting.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
  '/openapi.json': {
    get: { tags: ['service'], summary: 'This OpenAPI document', responses: { '200': jsonOk('OpenAPI 3.1 document.', { type: 'object' }) } },
  },
  '/docs': {
    get: {
      tags: ['service'],
      summary: 'Human-readable API documentation',
      responses: { '200': { description: 'A self-contained HTML page generated from this document.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/users': {
    get: {
      tags: ['users'],
      summary: 'List all users',
      description: 'The full list, oldest first. No filtering, sorting or paging.',
      responses: { '200': jsonOk('Every user record.', { type: 'array', items: ref('User') }), '500': AREA_A_ERRORS.server },
    },
    post: {
      tags: ['users'],
      summary: 'Create a user',
      requestBody: jsonBody('UserInput'),
      responses: {
        '201': {
          ...jsonOk('The created record, including its generated id.', ref('User')),
          headers: { Location: { description: 'Path of the new record, `/users/{id}`.', schema: { type: 'string' } } },
        },
        '400': AREA_A_ERRORS.invalid,
        '409': AREA_A_ERRORS.conflict,
        '413': AREA_A_ERRORS.tooLarge,
        '415': AREA_A_ERRORS.mediaType,
        '500': AREA_A_ERRORS.server,
        '503': AREA_A_ERRORS.locked,
      },
    },
  },
  '/users/{id}': {
    parameters: [idParameter],
    get: {
      tags: ['users'],
      summary: 'Get one user',
      responses: { '200': jsonOk('The record.', ref('User')), '400': AREA_A_ERRORS.invalid, '404': AREA_A_ERRORS.notFound, '500': AREA_A_ERRORS.server },
    },
    put: {
      tags: ['users'],
      summary: 'Replace a user’s name and email',
      description: 'Both fields are required: PUT replaces them together. `updated_at` changes, `created_at` does not.',
      requestBody: jsonBody('UserInput'),
      responses: {
        '200': jsonOk('The record as updated.', ref('User')),
        '400': AREA_A_ERRORS.invalid,
        '404': AREA_A_ERRORS.notFound,
        '409': AREA_A_ERRORS.conflict,
        '413': AREA_A_ERRORS.tooLarge,
        '415': AREA_A_ERRORS.mediaType,
        '500': AREA_A_ERRORS.server,
        '503': AREA_A_ERRORS.locked,
      },
    },
    delete: {
      tags: ['users'],
      summary: 'Delete a user',
      responses: { '204': { description: 'Deleted; empty body.' }, '400': AREA_A_ERRORS.invalid, '404': AREA_A_ERRORS.notFound, '500': AREA_A_ERRORS.server, '503': AREA_A_ERRORS.locked },
    },
  },
  '/v1/models': {
    get: {
      tags: ['models'],
      summary: 'List the models in the manifest',
      description: 'Every model this server knows, with its task and whether its files are installed.',
      ...secured,
      responses: { '200': jsonOk('The models.', ref('ModelList')), '401': V1_COMMON['401'], '500': V1_COMMON['500'] },
    },
  },
  '/v1/classifications': {
    post: {
      tags: ['classification'],
      summary: 'Classify a text',
      description: 'Returns every label with a confidence, highest first. With `labels`, a zero-shot model scores those candidate labels instead of its own.',
      ...secured,
      requestBody: jsonBody('ClassificationRequest'),
      responses: {
        '200': jsonOk('The labels.', ref('ClassificationResult')),
        '400': jsonError('Malformed JSON, a missing or invalid field, or a model of another task.', ['invalid_request', 'invalid_json', 'wrong_model_task']),
        ...V1_COMMON,
        '404': MODEL_404,
        '413': jsonError(`The body is larger than ${MB(DEFAULT_LIMITS.maxJsonBytes)}.`, ['payload_too_large']),
        '415': JSON_ONLY_415,
      },
    },
  },
  '/v1/engines/{model}/translate': {
    post: {
      tags: ['translation'],
      summary: 'Translate a text',
      ...secured,
      parameters: [{ name: 'model', in: 'path', required: true, description: 'Translation model id; must equal `model` in the body.', schema: { type: 'string' } }],
      requestBody: jsonBody('TranslationRequest'),
      responses: {
        '200': jsonOk('The translation.', ref('TranslationResult')),
        '400': jsonError('Malformed JSON, a missing or invalid field, path and body models differ, an unsupported language, or a model of another task.', ['invalid_request', 'invalid_json', 'wrong_model_task']),
        ...V1_COMMON,
        '404': MODEL_404,
        '413': jsonError(`The body is larger than ${MB(DEFAULT_LIMITS.maxJsonBytes)}.`, ['payload_too_large']),
        '415': JSON_ONLY_415,
      },
    },
  },
  '/v1/transcriptions': {
    post: transcriptionOperation(
      'Transcribe audio (JavaScript client form)',
      'Send the audio as the raw body (`audio/mpeg`, or WAV, FLAC, Ogg) with the model in `?model=` or `X-Model`, or as multipart/form-data with `file` and `model`. Identical to POST /v1/completions.',
    ),
  },
  '/v1/completions': {
    post: transcriptionOperation('Transcribe audio (raw request form)', 'Identical to POST /v1/transcriptions; SPEC names both paths.'),
  },
  '/v1/audio/transcriptions': {
    post: openAiTranscriptionOperation(
      'Transcribe audio (OpenAI form)',
      'OpenAI-compatible, for the official SDKs: multipart/form-data with `file` and `model`; `prompt`, `temperature` and `timestamp_granularities[]` are accepted and ignored. A raw audio body with `?model=` works too.',
    ),
  },
  '/v1/audio/translations': {
    post: openAiTranscriptionOperation(
      'Translate speech into English text (OpenAI form)',
      'Like POST /v1/audio/transcriptions, but always with task `translate`: the transcript is in English. Needs a multilingual model; an English-only model answers 400.',
    ),
  },
  '/v1/text-to-speech': {
    post: speechOperation('Speak a text', 'Synthesises `input` and streams the audio as it is produced.', 'SpeechRequest'),
  },
  '/v1/audio/speech': {
    post: speechOperation('Speak a text (OpenAI form)', 'OpenAI-compatible alias of POST /v1/text-to-speech. `response_format` values we do not produce (opus, aac, flac, pcm) are answered with 400.', 'OpenAISpeechRequest'),
  },
};

export const openApiDocument = Object.freeze({
  openapi: '3.1.0',
  info: {
    title: 'Local inference server',
    version: '0.1.0',
    description: [
      'Two areas. **Area A** (`/`, `/users`) manages user records; it needs no credentials and answers errors in short plain text.',
      '**Area B** (`/v1/...`) runs local models for classification, translation, speech to text and text to speech.',
      'Every `/v1` request needs `Authorization: Bearer <API_KEY>` (create keys with `npm run keys -- create --name NAME`).',
      'Area B errors are JSON: `{"error": {"message", "type", "code"}}`; the codes are listed below and in `x-error-codes`.',
      'A request with an unsupported method on a known path is answered 405 (`method_not_allowed`) with an `Allow` header (501 for a method no route uses, such as PROPFIND); an unknown path 404 (`not_found`).',
      'Every response carries `X-Request-Id` (echoed when the client sends one); the server log uses it.',
      `Any request whose body stops arriving for ${DEFAULT_LIMITS.timeouts.bodyIdleMs / 1000} s, or arrives slower than ${DEFAULT_LIMITS.timeouts.bodyMinBytesPerSecond / 1024} KiB/s after its first ${DEFAULT_LIMITS.timeouts.bodyRateGraceMs / 1000} s, is answered 408 (\`request_timeout\`) and its connection closed. A client that goes away before its answer is complete (\`client_closed\`, logged only) cancels its queued and running model work.`,
    ].join('\n\n'),
  },
  tags: [
    { name: 'service' },
    { name: 'users', description: 'Area A: user records.' },
    { name: 'models' },
    { name: 'classification' },
    { name: 'translation' },
    { name: 'speech to text' },
    { name: 'text to speech' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key from `npm run keys -- create` or from API_KEYS.' },
    },
    schemas,
  },
  'x-error-codes': Object.entries(ERROR_CODES).map(([code, description]) => ({ code, description })),
});
