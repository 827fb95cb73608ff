/**
 * OpenAI's POST /v1/embeddings on the sentence-embedding models: `input` is a text or an array
 * of up to 2048 texts (OpenAI's own limit, which the AI SDK fills), `encoding_format` `float`
 * (default) or `base64` (float32 little-endian, as the OpenAI SDKs decode it).
 * `text-embedding-3-small` and the other OpenAI names are aliases of the installed embedding
 * model (models.json); the answer names the model that ran.
 *
 * A batch is bounded by its texts' characters together (maxEmbeddingChars, 413), by its body
 * (maxEmbeddingBodyBytes) and by admission: one slot per text, or per 4 KiB of body at the door.
 * Its texts go through the model's micro-batches taking turns with other requests' texts, and the
 * answer is written a slice at a time (json-array-stream.ts).
 */
import { Type } from '@sinclair/typebox';
import type { Limits } from '../../../config/load-config.js';
import { PayloadTooLargeError, ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import {
  declareRoute,
  JSON_ONLY_415,
  jsonBody400,
  jsonError,
  jsonRequest,
  jsonResponse,
  megabytes,
  V1_COMMON_ERRORS,
  type DocumentedRouter,
} from '../../operation.js';
import { taskTag } from '../../../inference/tasks.js';
import { EMBEDDING_INPUT_TYPES } from '../../../inference/types.js';
import { claimBatch } from '../../admission.js';
import { requestSignal } from '../../request-signal.js';
import { StringEnum, Text } from '../../schema-types.js';
import { characterCount } from '../../validation.js';
import { jsonArrayStream } from '../../json-array-stream.js';
import type { V1RouteDeps } from '../v1-router.js';

const MAX_EMBEDDING_INPUTS = 2048;

const embeddingsRequest = (limits: Limits) =>
  Type.Object(
    {
      model: Text('Embedding model id, or an OpenAI name such as `text-embedding-3-small` (an alias of the installed model).'),
      input: Type.Union(
        [
          Text('A text.', { maxLength: limits.maxClassificationChars }),
          Type.Array(Text('A text.', { maxLength: limits.maxClassificationChars }), { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
        ],
        { description: `A text or an array of up to ${MAX_EMBEDDING_INPUTS} (token arrays are not accepted).` },
      ),
      encoding_format: Type.Optional(StringEnum(['float', 'base64'] as const, { description: '`float` (default) or `base64` of float32 little-endian.' })),
      dimensions: Type.Optional(Type.Integer({ minimum: 1, description: 'Must equal the model’s own width (e.g. 384); vectors are not shortened.' })),
      user: Type.Optional(Type.String({ maxLength: 256 })),
      input_type: Type.Optional(
        StringEnum(EMBEDDING_INPUT_TYPES, {
          description:
            'Extension: `query` for a search query, `passage` (default) for a text searched. Models trained with prefixes (multilingual-e5: `query: `, `passage: `) embed each with its own; others ignore it.',
        }),
      ),
    },
    { $id: 'EmbeddingsRequest' },
  );

const Embedding = Type.Object(
  {
    object: Type.Literal('embedding'),
    index: Type.Integer(),
    embedding: Type.Union([Type.Array(Type.Number()), Type.String()], { description: 'Unit-length vector, or its base64.' }),
  },
  { $id: 'Embedding' },
);
const EmbeddingsResult = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Embedding),
    model: Type.String({ description: 'The model that ran.' }),
    usage: Type.Object(
      { prompt_tokens: Type.Integer(), total_tokens: Type.Integer() },
      { description: 'Not counted here: both are 0 (OpenAI clients read the field, none bill by it).' },
    ),
  },
  { $id: 'EmbeddingsResult' },
);

export function embeddingsRoutes(router: DocumentedRouter, { models, limits, admit, validator }: V1RouteDeps): void {
  const schema = embeddingsRequest(limits);
  const parse = validator.compile(schema);
  declareRoute(
    router,
    {
      method: 'post',
      path: '/embeddings',
      tags: [taskTag('embeddings')],
      summary: 'Embed texts (OpenAI API)',
      description: 'Unit-length sentence embeddings, one per input, in input order.',
      secured: true,
      requestBody: jsonRequest(schema),
      responses: {
        '200': jsonResponse('The embeddings.', EmbeddingsResult),
        '400': jsonBody400(', a token array, or `dimensions` other than the model’s width'),
        '401': V1_COMMON_ERRORS['401']!,
        '404': V1_COMMON_ERRORS['404']!,
        '413': jsonError(
          `The body is larger than ${megabytes(limits.maxEmbeddingBodyBytes)}, the texts together are longer than ${limits.maxEmbeddingChars.toLocaleString('en')} characters, or the batch is larger than the server holds at once.`,
          ['payload_too_large'],
        ),
        '415': JSON_ONLY_415,
        '500': V1_COMMON_ERRORS['500']!,
        '503': V1_COMMON_ERRORS['503']!,
      },
    },
    admit('embeddings', { maxBodyBytes: limits.maxEmbeddingBodyBytes }),
    jsonBody(limits.maxEmbeddingBodyBytes),
    async (ctx) => {
      const body = ctx.request.body as { input?: unknown };
      if (Array.isArray(body?.input) && body.input.some((item) => typeof item !== 'string')) {
        throw new ValidationError('"input" must be text or an array of texts; token arrays are not accepted');
      }
      const request = parse(body);
      const texts = typeof request.input === 'string' ? [request.input] : request.input;
      const characters = texts.reduce((sum, text) => sum + characterCount(text), 0);
      if (characters > limits.maxEmbeddingChars) {
        throw new PayloadTooLargeError(
          `"input" holds ${characters} characters in ${texts.length} texts; the limit is ${limits.maxEmbeddingChars} per request: send smaller batches`,
        );
      }
      claimBatch(ctx, texts.length);
      const modelId = await models.resolve(request.model, 'embeddings');
      const embedder = await models.get(request.model, 'embeddings');
      const vectors = await embedder.embed(texts, { signal: requestSignal(ctx), ...(request.input_type ? { inputType: request.input_type } : {}) });
      const width = vectors[0]?.length ?? 0;
      if (request.dimensions !== undefined && request.dimensions !== width) {
        throw new ValidationError(`"dimensions" must be ${width} for ${modelId}: its vectors are not shortened`);
      }
      const base64 = request.encoding_format === 'base64';
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = jsonArrayStream(
        '{"object":"list","data":',
        vectors,
        (vector, index) => ({
          object: 'embedding',
          index,
          embedding: base64 ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector),
        }),
        `,"model":${JSON.stringify(modelId)},"usage":{"prompt_tokens":0,"total_tokens":0}}`,
      );
    },
  );
}
