/**
 * Decodes one 30-s Whisper window with timestamps, token by token, over the transformers.js
 * model's ONNX sessions (encoder_model, decoder_model_merged with its key/value cache), and
 * measures what openai/whisper's fallback rules need: the average log probability of the
 * sampled tokens and the probability of `<|nospeech|>` after `<|startoftranscript|>`.
 * transformers.js's generate() reports neither, hence this small loop of our own.
 */
import { Tensor } from '@huggingface/transformers';
import { applyTimestampRules } from './whisper-timestamp-rules.js';
import type { WhisperSpecialTokens } from './whisper-special-tokens.js';
import type { HeadAttention } from './word-timing.js';

/** An onnxruntime-node tensor, as the sessions take and give them. */
interface OrtTensor {
  data: unknown;
  dims: readonly number[];
}
type OrtTensorClass = new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>, fetches?: readonly string[]): Promise<Record<string, OrtTensor>>;
}

/** The parts of a transformers.js WhisperForConditionalGeneration this uses. */
export interface WhisperSeq2Seq {
  sessions: Record<string, OrtSession>;
  /** For the empty key/value cache of a first pass. */
  config: { decoder_attention_heads: number; d_model: number };
}

export interface WindowDecodeRequest {
  /** The encoder's output for this window. */
  audioFeatures: Tensor;
  /** Earlier text (tokens, timestamps included) to condition on; empty for none. */
  prompt: readonly number[];
  /** `<|startoftranscript|>` and, for multilingual models, language and task tokens. */
  startTokens: readonly number[];
  temperature: number;
  /** Tokens sampled at most (openai: 224, half the decoder's context). */
  maxTokens: number;
  /** Index of the last allowed first timestamp (openai: 50, i.e. 1 s). */
  maxInitialTimestampIndex?: number;
  signal: AbortSignal;
  /** Deterministic sampling at temperature > 0 (tests); Math.random otherwise. */
  random?: () => number;
}

export interface WindowDecodeResult {
  /** The sampled tokens, without the final `eot`. */
  tokens: number[];
  /** Each sampled token's log probability (unscaled by the temperature, as openai), aligned with `tokens`. */
  tokenLogProbs?: number[];
  avgLogProb: number;
  noSpeechProb: number;
}

/** Tokens of earlier text kept as the prompt (openai: n_ctx / 2 - 1). */
export const MAX_PROMPT_TOKENS = 223;
/** Prompt tokens the decoder reads per pass: logits of 32 tokens are 6.6 MB. */
const PROMPT_CHUNK_TOKENS = 32;

/** The decoder's `past_key_values.*` inputs, by name. */
type Cache = Record<string, OrtTensor>;

function ortTensorOf(tensor: Tensor): OrtTensor {
  return (tensor as unknown as { ort_tensor: OrtTensor }).ort_tensor;
}

export class WhisperWindowDecoder {
  readonly #model: WhisperSeq2Seq;
  readonly #tokens: WhisperSpecialTokens;

  constructor(model: WhisperSeq2Seq, tokens: WhisperSpecialTokens) {
    this.#model = model;
    this.#tokens = tokens;
  }

  /** Runs the encoder on input features [1, mel, 3000]. */
  async encode(inputFeatures: Tensor): Promise<Tensor> {
    const outputs = await this.#model.sessions.model!.run({ input_features: ortTensorOf(inputFeatures) });
    return new (Tensor as unknown as new (ortTensor: unknown) => Tensor)(outputs.last_hidden_state);
  }

  /** Whether the decoder outputs its cross-attention (`cross_attentions.N`, see scripts/test-models/lib/whisper-ct2.sh). */
  get outputsCrossAttention(): boolean {
    return this.#model.sessions.decoder_model_merged?.outputNames.includes('cross_attentions.0') ?? false;
  }

  /**
   * The cross-attention of the given heads ([layer, head]) while the decoder reads `tokens` in
   * one pass, no cache: rows are tokens, columns the window's 1500 encoder frames.
   */
  async crossAttention(audioFeatures: Tensor, tokens: readonly number[], heads: readonly (readonly [number, number])[]): Promise<HeadAttention[]> {
    const layers = [...new Set(heads.map(([layer]) => layer))];
    const outputs = await this.#run(
      ortTensorOf(audioFeatures),
      tokens,
      undefined,
      layers.map((layer) => `cross_attentions.${layer}`),
    );
    return heads.map(([layer, head]) => {
      const attention = outputs[`cross_attentions.${layer}`]!;
      const [, , rows, frames] = attention.dims as [number, number, number, number];
      const size = rows * frames;
      return { weights: (attention.data as Float32Array).slice(head * size, (head + 1) * size), tokens: rows, frames };
    });
  }

  /**
   * The decoder reading `tokens` after the key/value cache `past` (none: an empty cache), straight
   * on the ONNX session (transformers.js's wrapping of every input and output cost a noticeable
   * share of a step; docs/benchmarks.md, "Speech to text"), fetching only `fetches`. Everything a
   * pass can output is, for 228 tokens, logits for every token (47 MB for a 51,864-token
   * vocabulary), every layer's cross-attention (33 MB for tiny) and the caches: garbage the moment
   * the next pass starts, which left to the garbage collector set the worker's peak memory.
   */
  async #run(audio: OrtTensor, tokens: readonly number[], past: Cache | undefined, fetches: readonly string[]): Promise<Record<string, OrtTensor>> {
    const session = this.#model.sessions.decoder_model_merged!;
    const OrtTensor = audio.constructor as OrtTensorClass;
    const { decoder_attention_heads: headCount, d_model: width } = this.#model.config;
    const emptyCache = past ? undefined : new OrtTensor('float32', new Float32Array(0), [1, headCount, 0, width / headCount]);
    const feeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids')
        feeds[name] = new OrtTensor(
          'int64',
          BigInt64Array.from(tokens, (id) => BigInt(id)),
          [1, tokens.length],
        );
      else if (name === 'encoder_hidden_states') feeds[name] = audio;
      else if (name === 'use_cache_branch') feeds[name] = new OrtTensor('bool', Uint8Array.of(past ? 1 : 0), [1]);
      else if (name.startsWith('past_key_values')) feeds[name] = past ? past[name] : emptyCache;
      else throw new Error(`the decoder takes an input this pass does not know: ${name}`);
    }
    return session.run(feeds, fetches);
  }

  /**
   * Reads `tokens` after `past` and returns the grown cache, and the logits of these tokens if
   * asked. The cross-attention cache (`.encoder`) is the same after the first pass, so later
   * passes neither fetch nor replace it.
   */
  async #extend(audio: OrtTensor, tokens: readonly number[], past: Cache | undefined, withLogits: boolean): Promise<{ cache: Cache; logits?: OrtTensor }> {
    const caches = this.#model.sessions.decoder_model_merged!.outputNames.filter((name) => name.startsWith('present') && !(past && name.includes('encoder')));
    const outputs = await this.#run(audio, tokens, past, withLogits ? ['logits', ...caches] : caches);
    const cache: Cache = { ...past };
    for (const name of caches) cache[name.replace('present', 'past_key_values')] = outputs[name]!;
    return { cache, logits: outputs.logits };
  }

  async decode(request: WindowDecodeRequest): Promise<WindowDecodeResult> {
    const { eot, sot, sotPrev, noSpeech } = this.#tokens;
    const prompt = sotPrev !== undefined && request.prompt.length > 0 ? [sotPrev, ...request.prompt.slice(-MAX_PROMPT_TOKENS)] : [];
    const random = request.random ?? Math.random;
    const audio = ortTensorOf(request.audioFeatures);

    // The prompt is read a chunk at a time, without its logits: read at once, a full prompt's
    // would be 47 MB for the few rows the start tokens need (same cache, same logits after).
    let past: Cache | undefined;
    for (let at = 0; at < prompt.length; at += PROMPT_CHUNK_TOKENS) {
      ({ cache: past } = await this.#extend(audio, prompt.slice(at, at + PROMPT_CHUNK_TOKENS), past, false));
    }
    const start = await this.#extend(audio, request.startTokens, past, true);
    past = start.cache;
    const vocab = start.logits!.dims[2]!;
    let last = { data: start.logits!.data as Float32Array, rows: start.logits!.dims[1]! };
    let noSpeechProb = 0;
    if (noSpeech !== undefined) {
      const sotIndex = Math.max(0, request.startTokens.indexOf(sot));
      noSpeechProb = Math.exp(logSoftmaxAt(last.data.subarray(sotIndex * vocab, (sotIndex + 1) * vocab), noSpeech));
    }
    const sampled: number[] = [];
    const tokenLogProbs: number[] = [];
    let sumLogProb = 0;
    for (;;) {
      request.signal.throwIfAborted();
      const logits = last.data.slice((last.rows - 1) * vocab, last.rows * vocab);
      applyTimestampRules(logits, sampled, this.#tokens, { maxInitialTimestampIndex: request.maxInitialTimestampIndex });
      const token = request.temperature > 0 ? sample(logits, request.temperature, random) : argmax(logits);
      const logProb = logSoftmaxAt(logits, token);
      sumLogProb += logProb;
      if (token === eot) break;
      sampled.push(token);
      tokenLogProbs.push(logProb);
      if (sampled.length >= request.maxTokens) break;
      const step = await this.#extend(audio, [token], past, true);
      past = step.cache;
      last = { data: step.logits!.data as Float32Array, rows: step.logits!.dims[1]! };
    }
    return { tokens: sampled, tokenLogProbs, avgLogProb: sumLogProb / (sampled.length + 1), noSpeechProb };
  }
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index++) if (values[index]! > values[best]!) best = index;
  return best;
}

/** log softmax(values)[index]. */
function logSoftmaxAt(values: Float32Array, index: number): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  let sum = 0;
  for (const value of values) sum += Math.exp(value - max);
  return values[index]! - max - Math.log(sum);
}

/** A token drawn from softmax(values / temperature). */
function sample(values: Float32Array, temperature: number, random: () => number): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  const weights = new Float64Array(values.length);
  let total = 0;
  for (let index = 0; index < values.length; index++) {
    const weight = Math.exp((values[index]! - max) / temperature);
    weights[index] = weight;
    total += weight;
  }
  let target = random() * total;
  for (let index = 0; index < weights.length; index++) {
    target -= weights[index]!;
    if (target <= 0 && weights[index]! > 0) return index;
  }
  return argmax(values);
}
