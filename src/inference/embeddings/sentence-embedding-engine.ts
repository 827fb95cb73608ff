/**
 * Engine `sentence-embedding`: the `embeddings` task (OpenAI /v1/embeddings, TEI /embed) on a
 * sentence-transformers ONNX model. It runs on the same shared embedder as the
 * embedding-classifier entries of that base model (shared-embedders.ts), so minilm-embeddings,
 * minilm-sentiment and minilm-topics share one set of sessions and one micro-batcher.
 *
 * ```json
 * "options": { "baseModel": "all-MiniLM-L6-v2" }
 * "options": { "prefixes": { "query": "query: ", "passage": "passage: " } }
 * ```
 *
 * `prefixes`: models trained on prefixed text (multilingual-e5) embed each text with the prefix of
 * its input type, `passage` unless the request says `query`; without them, texts go in as sent.
 */
import { Type } from '@sinclair/typebox';
import { defineEngine } from '../engine.js';
import { encoderOptions } from '../sentence-encoder/encoder-options.js';
import { weightsDir, weightsInstalled } from '../sentence-encoder/load-transformers-model.js';
import { acquireSentenceEmbedder } from '../sentence-encoder/shared-embedders.js';
import type { Embedder } from '../types.js';

const SentenceEmbeddingOptions = Type.Object(
  {
    ...encoderOptions,
    prefixes: Type.Optional(Type.Object({ query: Type.String(), passage: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const sentenceEmbeddingEngine = defineEngine({
  tasks: ['embeddings'],
  options: SentenceEmbeddingOptions,
  isInstalled: weightsInstalled,
  filesDir: (_entry, context, options) => weightsDir(options, context),

  async load(entry, context, options): Promise<Embedder> {
    const lease = await acquireSentenceEmbedder(entry.id, options, context);
    const embedder = lease.value;
    const { prefixes } = options;
    return {
      maxInputTokens: embedder.maxInputTokens,
      // One request's texts ride in the shared micro-batches as one group, taking turns with
      // other requests' texts, so a batch of 2048 does not hold up a request of one; a cancelled
      // request's texts leave them (MicroBatcher).
      embed: (texts, { signal, inputType = 'passage' } = {}) => {
        const request = {};
        return Promise.all(texts.map((text) => embedder.embed(prefixes ? prefixes[inputType] + text : text, signal, request)));
      },
      dispose: () => lease.release(),
    };
  },

  describe(_entry, options) {
    // dtype and pooling: TEI's GET /info names them.
    return { dtype: options.dtype, pooling: options.pooling, ...(options.prefixes ? { input_types: ['passage', 'query'] } : {}) };
  },
});
