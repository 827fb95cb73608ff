/**
 * Decodes 30-s Whisper windows with timestamps, token by token, over the transformers.js
 * model's ONNX sessions (encoder_model, decoder_model_merged with its key/value cache), and
 * measures what openai/whisper's fallback rules need: the average log probability of the
 * sampled tokens and the probability of `<|nospeech|>` after `<|startoftranscript|>`.
 * transformers.js's generate() reports neither, hence this small loop of our own.
 *
 * Three strategies, each in its own module over the passes of decoder-passes.ts:
 * - lockstep-decode.ts: one row, or a batch of independent windows decoded one step at a time
 *   together (greedy or sampled, each row its own rules, temperature and end);
 * - window-search.ts: one window's beam search or best-of sampling, its rows sharing the
 *   window's audio and cross-attention cache;
 * - searches-together.ts: several windows' searches stepping together on the batch decoder whose
 *   cross-attention is grouped by window (graph/grouped-cross-attention.ts).
 */
import type { Tensor } from '@huggingface/transformers';
import { decodeSearch, searchRows } from '../decoding/whisper-search-decode.js';
import type { WhisperSpecialTokens } from '../decoding/whisper-special-tokens.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../decoding/window-decode-request.js';
import type { HeadAttention } from '../decoding/word-timing.js';
import { crossAttentionOutput } from '../graph/rewrite-contract.js';
import type { SearchBatchFits } from '../long-form/whisper-batch-size.js';
import { DecoderPasses, ortTensorOf, type WhisperDecoderSession, type WhisperSeq2Seq, wrapTensor } from './decoder-passes.js';
import { decodeLockstep } from './lockstep-decode.js';
import { searchBatches, searchTogether } from './searches-together.js';
import { windowSearch } from './window-search.js';

export interface WhisperWindowDecoderOptions {
  /** The session every decode runs on: the rewritten decoder (graph/rewritten-decoder.ts); by default the model's own. */
  decoder?: WhisperDecoderSession;
  fitsSearchBatch?: SearchBatchFits;
  /** Whether the model's own decoder broadcasts one row of cross-attention cache, read from its graph at load (graph/cross-rows-support.ts). */
  decoderBroadcastsCrossRows?: boolean;
}

export class WhisperWindowDecoder {
  readonly #model: WhisperSeq2Seq;
  readonly #passes: DecoderPasses;
  readonly #fitsSearchBatch: SearchBatchFits;
  readonly #broadcasts: boolean;

  /**
   * `decoder`: the session every decode runs on, one row or several (beam search, best-of, a batch
   * of windows): the rewritten graph the worker opens at load in place of the model's
   * (asr-worker.ts). `fitsSearchBatch`: whether a number of windows' searches, each of so many
   * rows, may step in one run (decodeBatch; searchBatchFits, by threads and memory); by default
   * each window's search runs alone. `decoderBroadcastsCrossRows`: for the model's own decoder,
   * true by default, as optimum's exports do; the worker reads it from the graph when it loads.
   */
  constructor(model: WhisperSeq2Seq, tokens: WhisperSpecialTokens, options: WhisperWindowDecoderOptions = {}) {
    this.#model = model;
    this.#passes = new DecoderPasses(model, tokens, options.decoder);
    this.#fitsSearchBatch = options.fitsSearchBatch ?? (() => false);
    this.#broadcasts = options.decoder ? (options.decoder.broadcastsCrossRows ?? false) : (options.decoderBroadcastsCrossRows ?? true);
  }

  /** Runs the encoder on input features [1, mel, 3000]; `signal` stops a run that has yet to start. */
  async encode(inputFeatures: Tensor, signal?: AbortSignal): Promise<Tensor> {
    const feeds = { input_features: ortTensorOf(inputFeatures) };
    const { last_hidden_state: output } = await (signal
      ? this.#model.sessions.model!.run(feeds, undefined, { signal })
      : this.#model.sessions.model!.run(feeds));
    return wrapTensor(output!);
  }

  /** Whether the decoder outputs its cross-attention (`cross_attentions.N`, see scripts/test-models/lib/whisper-ct2.sh). */
  get outputsCrossAttention(): boolean {
    return this.#passes.decoder.outputNames.includes(crossAttentionOutput(0));
  }

  /**
   * The cross-attention of the given heads ([layer, head]) while the decoder reads `tokens` in
   * one pass, no cache: rows are tokens, columns the window's 1500 encoder frames.
   */
  async crossAttention(audioFeatures: Tensor, tokens: readonly number[], heads: readonly (readonly [number, number])[]): Promise<HeadAttention[]> {
    const layers = [...new Set(heads.map(([layer]) => layer))];
    const outputs = await this.#passes.run(ortTensorOf(audioFeatures), [tokens], undefined, layers.map(crossAttentionOutput));
    return heads.map(([layer, head]) => {
      const attention = outputs[crossAttentionOutput(layer)]!;
      const [, , rows, frames] = attention.dims as [number, number, number, number];
      const size = rows * frames;
      return { weights: (attention.data as Float32Array).slice(head * size, (head + 1) * size), tokens: rows, frames };
    });
  }

  async decode(request: WindowDecodeRequest): Promise<WindowDecodeResult> {
    if (searchRows(request) > 1) {
      return decodeSearch(request, this.#passes.tokens, windowSearch(this.#passes, request, this.#passes.decoder, this.#broadcasts));
    }
    const [result] = await decodeLockstep(this.#passes, [request], this.#passes.decoder);
    return result!;
  }

  /**
   * Decodes independent windows, each as `decode` would alone (same tokens for the same
   * request), in lockstep batches: one per length of prompt and start tokens, in the order
   * given, greedy windows first, then those searched (beam search, best-of), whose beams or
   * samples step together (searches-together.ts). Every request's signal is checked at every
   * step; the caller picks how many windows to pass at once (whisperBatchSize); a run of searches
   * holds what fitsSearchBatch allows. `onDecoded(index, result)` hears of each request as soon
   * as its decode ends, while the batch goes on with the others.
   */
  async decodeBatch(requests: readonly WindowDecodeRequest[], onDecoded?: (index: number, result: WindowDecodeResult) => void): Promise<WindowDecodeResult[]> {
    const plain = new Map<string, number[]>();
    const searched = new Map<string, number[]>();
    requests.forEach((request, index) => {
      const groups = searchRows(request) > 1 ? searched : plain;
      const key = `${this.#passes.prompt(request).length}/${request.startTokens.length}`;
      groups.set(key, [...(groups.get(key) ?? []), index]);
    });
    const results: WindowDecodeResult[] = new Array(requests.length);
    const decoded = (index: number, result: WindowDecodeResult) => {
      results[index] = result;
      onDecoded?.(index, result);
    };
    const session = this.#passes.decoder;
    for (const indices of plain.values()) {
      await decodeLockstep(
        this.#passes,
        indices.map((index) => requests[index]!),
        session,
        (position, result) => decoded(indices[position]!, result),
      );
    }
    for (const sameLengths of searched.values()) {
      // Without grouped cross-attention each row would read a copy of its window's cache, which costs what the batch saves.
      const batches = session.groupsCrossRows
        ? searchBatches(
            sameLengths.map((index) => [index, searchRows(requests[index]!)]),
            this.#fitsSearchBatch,
          )
        : sameLengths.map((index) => [index]);
      for (const indices of batches) {
        if (indices.length === 1) decoded(indices[0]!, await this.decode(requests[indices[0]!]!));
        else
          await searchTogether(
            this.#passes,
            indices.map((index) => requests[index]!),
            session,
            (position, result) => decoded(indices[position]!, result),
          );
      }
    }
    return results;
  }
}
