/**
 * The tensor plumbing of the window decoder: one decoder pass over the ONNX session, fed and
 * fetched by the rewrite contract's names (graph/rewrite-contract.ts), and what every decoding
 * strategy starts with (the prompt and start tokens read, the no-speech probability). The
 * strategies (lockstep-decode.ts, window-search.ts, searches-together.ts) step through these.
 *
 * Passes run straight on the ONNX session rather than through transformers.js's model call:
 * its wrapping of every input and output cost a noticeable share of a step (docs/benchmarks.md,
 * "Speech to text"), and a pass fetches only what it reads. Everything a pass can output is, for
 * a long prompt, logits for every token, every layer's cross-attention and the caches: garbage
 * the moment the next pass starts, which left to the garbage collector set the worker's peak memory.
 */
import { Tensor } from '@huggingface/transformers';
import type { OrtTensor } from '../../ort-tensor.js';
import type { WhisperSpecialTokens } from '../decoding/whisper-special-tokens.js';
import { logSoftmaxAt } from '../decoding/whisper-token-choice.js';
import { MAX_PROMPT_TOKENS, type WindowDecodeRequest } from '../decoding/window-decode-request.js';
import {
  ENCODER_HIDDEN_STATES,
  INPUT_IDS,
  isCrossAttentionCache,
  isSelfAttentionCache,
  LOGITS,
  LOGITS_FROM,
  PAST_PREFIX,
  PRESENT_PREFIX,
  pastInputName,
  SHARED_PREFIX,
  STEP_PREFIX,
  USE_CACHE_BRANCH,
} from '../graph/rewrite-contract.js';
import { SelfAttentionRows } from './self-attention-rows.js';

/** An ONNX session of the decoder, as the model holds it or as graph/rewritten-decoder.ts opens it. */
export interface WhisperDecoderSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  /**
   * Whether its cached cross-attention takes one row per window for all that window's rows, each
   * window's rows together (grouped-cross-attention.ts): several windows' searches can step in one run.
   */
  readonly groupsCrossRows?: boolean;
  /** Whether its attention takes one row of cross-attention cache for many rows, read from its graph (graph/cross-rows-support.ts). */
  readonly broadcastsCrossRows?: boolean;
  /**
   * Whether it quantizes activations with one scale over each run's whole input (q8's
   * DynamicQuantizeLinear): how a prompt is split into runs then changes the start tokens' logits,
   * so the prompt is read in runs of its own, as on the model's graph, even with `logits_from`.
   */
  readonly quantizesPerRun?: boolean;
  /** `options.signal`: honoured by a session in a thread of its own (onnx-session-thread.ts), whose run may wait its turn. */
  run(feeds: Record<string, unknown>, fetches?: readonly string[], options?: { signal?: AbortSignal }): Promise<Record<string, OrtTensor>>;
}

/** The parts of a transformers.js WhisperForConditionalGeneration this uses (its public `sessions` and `config`). */
export interface WhisperSeq2Seq {
  sessions: Record<string, WhisperDecoderSession>;
  /** For the empty key/value cache of a first pass. */
  config: { decoder_attention_heads: number; d_model: number };
}

/** The decoder's `past_key_values.*` inputs, by name. */
export type Cache = Record<string, OrtTensor>;

/** A decode's key/value cache between runs: the cross-attention's (`.encoder`, the same after the first run) and the self-attention's rows. */
export interface DecoderCache {
  encoder: Cache;
  selfAttention: SelfAttentionRows;
}

/** Prompt tokens the decoder reads per pass on a session without LOGITS_FROM: logits of 32 tokens are 6.6 MB. */
const PROMPT_CHUNK_TOKENS = 32;

/** transformers.js's public bridge (`Tensor#ort_tensor`, `new Tensor(ortTensor)`): the onnxruntime tensor under a Tensor. */
export function ortTensorOf(tensor: Tensor): OrtTensor {
  return tensor.ort_tensor as OrtTensor;
}

export function wrapTensor(ortTensor: OrtTensor): Tensor {
  return new Tensor(ortTensor as Tensor['ort_tensor']);
}

export class DecoderPasses {
  readonly #model: WhisperSeq2Seq;
  readonly tokens: WhisperSpecialTokens;
  /** The session every pass runs on: the rewritten decoder, or the model's own. */
  readonly decoder: WhisperDecoderSession;

  constructor(model: WhisperSeq2Seq, tokens: WhisperSpecialTokens, decoder = model.sessions.decoder_model_merged!) {
    this.#model = model;
    this.tokens = tokens;
    this.decoder = decoder;
  }

  /**
   * The decoder reading `tokens` (one equally long row per window of the batch) after the
   * key/value cache `past` (none: an empty cache), fetching only `fetches`.
   */
  async run(
    audio: OrtTensor,
    tokens: readonly (readonly number[])[],
    past: Cache | undefined,
    fetches: readonly string[],
    session = this.decoder,
    logitsFrom = 0,
  ): Promise<Record<string, OrtTensor>> {
    const OrtTensor = audio.constructor as new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;
    const { decoder_attention_heads: headCount, d_model: width } = this.#model.config;
    const rows = tokens.length;
    const emptyCache = past ? undefined : new OrtTensor('float32', new Float32Array(0), [rows, headCount, 0, width / headCount]);
    // No positions shared by every row (self-attention-steps.ts): one empty row, which broadcasts.
    const noShared = new OrtTensor('float32', new Float32Array(0), [1, headCount, 0, width / headCount]);
    const feeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      if (name === INPUT_IDS)
        feeds[name] = new OrtTensor(
          'int64',
          BigInt64Array.from(tokens.flat(), (id) => BigInt(id)),
          [rows, tokens[0]!.length],
        );
      else if (name === ENCODER_HIDDEN_STATES) feeds[name] = audio;
      else if (name === USE_CACHE_BRANCH) feeds[name] = new OrtTensor('bool', Uint8Array.of(past ? 1 : 0), [1]);
      // A pass without logits asks for none of the tokens read: the output projection is skipped.
      else if (name === LOGITS_FROM)
        feeds[name] = new OrtTensor('int64', BigInt64Array.of(BigInt(fetches.includes(LOGITS) ? logitsFrom : tokens[0]!.length)), [1]);
      else if (name.startsWith(PAST_PREFIX)) feeds[name] = past ? past[name] : emptyCache;
      else if (name.startsWith(SHARED_PREFIX)) feeds[name] = past?.[name] ?? noShared;
      else throw new Error(`the decoder takes an input this pass does not know: ${name}`);
    }
    return session.run(feeds, fetches);
  }

  /**
   * Reads `tokens` after `past` (its self-attention rows `sources`, all when absent) and returns
   * the grown cache, and the logits of these tokens if asked (from token `logitsFrom` on, on a
   * session that takes LOGITS_FROM; of all of them on another). The cross-attention cache
   * (`.encoder`) is the same after the first pass, so later passes neither fetch nor replace it;
   * of the self-attention, a decoder with step outputs (self-attention-steps.ts) gives only the
   * positions read, which the rows append (self-attention-rows.ts).
   */
  async extend(
    audio: OrtTensor,
    tokens: readonly (readonly number[])[],
    past: DecoderCache | undefined,
    withLogits: boolean,
    session = this.decoder,
    sources?: readonly number[],
    logitsFrom = 0,
  ): Promise<{ cache: DecoderCache; logits?: OrtTensor }> {
    const stepping = session.outputNames.some((name) => name.startsWith(STEP_PREFIX));
    const selfAttention = session.outputNames.filter((name) => isSelfAttentionCache(name, stepping ? STEP_PREFIX : PRESENT_PREFIX));
    const encoder = past ? [] : session.outputNames.filter((name) => isCrossAttentionCache(name, PRESENT_PREFIX));
    const fetches = [...(withLogits ? [LOGITS] : []), ...selfAttention, ...encoder];
    const outputs = await this.run(audio, tokens, past && { ...past.selfAttention.past(sources), ...past.encoder }, fetches, session, logitsFrom);
    const rows = past?.selfAttention ?? new SelfAttentionRows();
    rows.update(outputs);
    const cache = past?.encoder ?? Object.fromEntries(encoder.map((name) => [pastInputName(name), outputs[name]!]));
    return { cache: { encoder: cache, selfAttention: rows }, logits: outputs[LOGITS] };
  }

  /** `sotPrev` and the last of the request's prompt, or nothing. */
  prompt(request: WindowDecodeRequest): number[] {
    const { sotPrev } = this.tokens;
    return sotPrev !== undefined && request.prompt.length > 0 ? [sotPrev, ...request.prompt.slice(-MAX_PROMPT_TOKENS)] : [];
  }

  /**
   * Reads each request's prompt and then its start tokens, one row each (prompts and start tokens of
   * equal lengths): the cache after them and the start tokens' logits. A session that takes
   * LOGITS_FROM reads both in one pass, its logits from the start tokens on. On another, or one that
   * quantizes per run, the prompt is read a chunk at a time, without its logits (with LOGITS_FROM
   * not even computed): read at once, a full prompt's would be 47 MB per window for the few rows
   * the start tokens need (same cache, same logits after).
   */
  async readStart(audio: OrtTensor, requests: readonly WindowDecodeRequest[], session = this.decoder): Promise<{ cache: DecoderCache; logits: OrtTensor }> {
    const prompts = requests.map((request) => this.prompt(request));
    if (session.inputNames.includes(LOGITS_FROM) && !session.quantizesPerRun) {
      // Its logits start where asked: prompt and start tokens in one pass, logits for the latter only.
      const start = await this.extend(
        audio,
        requests.map((request, row) => [...prompts[row]!, ...request.startTokens]),
        undefined,
        true,
        session,
        undefined,
        prompts[0]!.length,
      );
      return { cache: start.cache, logits: start.logits! };
    }
    let past: DecoderCache | undefined;
    for (let at = 0; at < prompts[0]!.length; at += PROMPT_CHUNK_TOKENS) {
      ({ cache: past } = await this.extend(
        audio,
        prompts.map((prompt) => prompt.slice(at, at + PROMPT_CHUNK_TOKENS)),
        past,
        false,
        session,
      ));
    }
    const start = await this.extend(
      audio,
      requests.map((request) => request.startTokens),
      past,
      true,
      session,
    );
    return { cache: start.cache, logits: start.logits! };
  }

  /** Row `row`'s probability of no speech, read at its `<|startoftranscript|>` in the start tokens' logits; 0 for models without the token. */
  noSpeechProb(logits: OrtTensor, row: number, request: WindowDecodeRequest): number {
    const { sot, noSpeech } = this.tokens;
    if (noSpeech === undefined) return 0;
    const vocab = logits.dims[2]!;
    const at = (row * logits.dims[1]! + Math.max(0, request.startTokens.indexOf(sot))) * vocab;
    return Math.exp(logSoftmaxAt((logits.data as Float32Array).subarray(at, at + vocab), noSpeech));
  }
}
