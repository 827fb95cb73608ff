/**
 * OpenAI's POST /v1/embeddings on the sentence-embedding models: `input` is a text or an array
 * of up to 2048 texts (OpenAI's own limit, which the AI SDK fills), or token ids (one array, or
 * up to 2048 of them) when the model is named by an OpenAI name, whose tokenizer they are decoded
 * with (embedding-token-input.ts, token-encodings.ts); `encoding_format` `float` (default) or
 * `base64` (float32 little-endian, as the OpenAI SDKs decode it); `dimensions` shortens the
 * vectors as OpenAI does (shortenEmbedding). `text-embedding-3-small` and the other OpenAI names
 * are aliases of the installed embedding model (models.json); the answer names the model that ran.
 *
 * A batch is bounded by its texts' characters together (maxEmbeddingChars, 413), or for token
 * ids by OpenAI's token limits and the characters they decode to, by its body
 * (maxEmbeddingBodyBytes) and by admission: one slot per input, or per 4 KiB of body at the door.
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
import { claimedEncoding, shortenEmbedding, TOKENIZED_MODEL_NAMES, type TokenEncoding } from '../../../inference/model-registry.js';
import { taskTag } from '../../../inference/tasks.js';
import { EMBEDDING_INPUT_TYPES } from '../../../inference/types.js';
import { claimBatch } from '../../admission.js';
import { requestSignal } from '../../request-signal.js';
import { KEYWORDS, StringEnum, Text } from '../../schema-types.js';
import { characterCount } from '../../validation.js';
import { jsonArrayStream } from '../../json-array-stream.js';
import type { V1RouteDeps } from '../v1-router.js';
import type { Models } from '../../scoped-models.js';
import { TOKEN_LIMITS, tokenInput, type TokenInput } from './embedding-token-input.js';

const MAX_EMBEDDING_INPUTS = 2048;
/**
 * What the texts of one request's token ids may hold together. English runs about 4.4 characters
 * a token in cl100k_base (AG News, SST-2), so OpenAI's 300,000 tokens are some 1.3 million: this
 * is 8 a token on average, room for any real text; a request of the longest tokens (up to 128
 * characters each) is stopped here rather than passed on at 38 million.
 */
const MAX_DECODED_CHARACTERS = 8 * TOKEN_LIMITS.tokensPerRequest;

const TokenIds = (description: string, maxItems: number) => Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, maxItems, description });

const embeddingsRequest = (limits: Limits) =>
  Type.Object(
    {
      model: Text('Embedding model id, or an OpenAI name such as `text-embedding-3-small` (an alias of the installed model).'),
      input: Type.Union(
        [
          Text('A text.', { maxLength: limits.maxClassificationChars }),
          Type.Array(Text('A text.', { maxLength: limits.maxClassificationChars }), { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
          TokenIds('The token ids of one text.', TOKEN_LIMITS.tokensPerInput),
          Type.Array(TokenIds('The token ids of one text.', TOKEN_LIMITS.tokensPerInput), { minItems: 1, maxItems: TOKEN_LIMITS.inputs }),
        ],
        {
          description:
            `A text or an array of up to ${MAX_EMBEDDING_INPUTS}; or token ids, one array or up to ${TOKEN_LIMITS.inputs}, of up to ` +
            `${TOKEN_LIMITS.tokensPerInput.toLocaleString('en')} ids each and ${TOKEN_LIMITS.tokensPerRequest.toLocaleString('en')} together, ` +
            `only with a model named by an OpenAI name (${TOKENIZED_MODEL_NAMES.join(', ')}: cl100k_base ids, as tiktoken makes them), ` +
            'which are decoded to text and embedded by the model it stands for.',
        },
      ),
      encoding_format: Type.Optional(StringEnum(['float', 'base64'] as const, { description: '`float` (default) or `base64` of float32 little-endian.' })),
      dimensions: Type.Optional(
        Type.Integer({
          minimum: 1,
          [KEYWORDS.invalidMessage]: 'must be a whole number from 1 to the model’s width (384 for MiniLM)',
          description:
            'Shorter vectors: the first `dimensions` values, scaled back to unit length (as OpenAI shortens them). At most the model’s own width (384 for MiniLM).',
        }),
      ),
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
        '400': jsonBody400(
          ', token ids with a model named by its own id (no OpenAI tokenizer claimed) or that are no token of it, or `dimensions` above the model’s width',
        ),
        '401': V1_COMMON_ERRORS['401']!,
        '404': V1_COMMON_ERRORS['404']!,
        '413': jsonError(
          `The body is larger than ${megabytes(limits.maxEmbeddingBodyBytes)}, the texts together are longer than ${limits.maxEmbeddingChars.toLocaleString('en')} characters, ` +
            `token ids are more than ${TOKEN_LIMITS.tokensPerRequest.toLocaleString('en')} together or decode to more than ${MAX_DECODED_CHARACTERS.toLocaleString('en')} characters, ` +
            'or the batch is larger than the server holds at once.',
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
      // Before the schema: its union phrases errors for texts (embedding-token-input.ts).
      const tokens = tokenInput(body?.input);
      const request = parse(body);
      const modelId = await models.resolve(request.model, 'embeddings');
      const signal = requestSignal(ctx);
      const encoding = tokens && claimedEncoding(request.model);
      if (tokens && !encoding) throw unclaimedTokens(request.model);
      const sent = tokens ? undefined : textsWithin(request.input as string | string[], limits.maxEmbeddingChars);
      claimBatch(ctx, tokens ? tokens.inputs.length : (sent as string[]).length);
      // The key's model list is checked here: ids are decoded only for a request that may run the model.
      const embedder = await models.get(request.model, 'embeddings');
      const texts = tokens && encoding ? await decodedTexts(models, encoding, tokens, signal) : (sent as string[]);
      const vectors = await embedder.embed(texts, { signal, ...(request.input_type ? { inputType: request.input_type } : {}) });
      const width = vectors[0]?.length ?? 0;
      const dimensions = request.dimensions ?? width;
      if (dimensions > width) {
        throw new ValidationError(
          `"dimensions" must be from 1 to ${width} for ${modelId}: its vectors have ${width} values, and are only shortened`,
          'dimensions',
        );
      }
      const base64 = request.encoding_format === 'base64';
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = jsonArrayStream(
        '{"object":"list","data":',
        vectors,
        (full, index) => {
          const vector = shortenEmbedding(full, dimensions);
          return {
            object: 'embedding',
            index,
            embedding: base64 ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector),
          };
        },
        `,"model":${JSON.stringify(modelId)},"usage":{"prompt_tokens":0,"total_tokens":0}}`,
      );
    },
  );
}

/** The texts sent (the schema has refused every other shape but token ids, which went the other way). */
function textsWithin(input: string | string[], maxCharacters: number): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  const characters = texts.reduce((sum, text) => sum + characterCount(text), 0);
  if (characters > maxCharacters) {
    throw new PayloadTooLargeError(
      `"input" holds ${characters} characters in ${texts.length} texts; the limit is ${maxCharacters} per request: send smaller batches`,
    );
  }
  return texts;
}

/** Token ids sent with a model's own id: nothing says whose ids they are, so they are not guessed. */
function unclaimedTokens(model: string): ValidationError {
  return new ValidationError(
    `"input" holds token ids, but "${model}" names no OpenAI model, so no tokenizer is claimed to read them with (this server's models have their own). ` +
      `Send the text itself, or name ${TOKENIZED_MODEL_NAMES.map((name) => `"${name}"`).join(', ')} as "model", whose cl100k_base ids (as tiktoken makes them) are decoded here. ` +
      'LangChain sends ids unless OpenAIEmbeddings(check_embedding_ctx_length=False).',
    'input',
  );
}

async function decodedTexts(models: Models, encoding: TokenEncoding, tokens: TokenInput, signal: AbortSignal): Promise<string[]> {
  const result = await models.decodeTokens(encoding, tokens.inputs, { maxCharacters: MAX_DECODED_CHARACTERS, signal });
  if ('unknownId' in result) {
    const { input, position, id } = result.unknownId;
    const param = tokens.flat ? `input[${position}]` : `input[${input}][${position}]`;
    throw new ValidationError(`"${param}" is ${id}, which is no token of ${encoding}`, param);
  }
  if ('tooLong' in result) {
    const { characters, inputs } = result.tooLong;
    throw new PayloadTooLargeError(
      `"input" decodes to more than ${MAX_DECODED_CHARACTERS} characters (${characters} in its first ${inputs} token arrays); the limit is ${MAX_DECODED_CHARACTERS} per request: send smaller batches`,
    );
  }
  return result.texts;
}
