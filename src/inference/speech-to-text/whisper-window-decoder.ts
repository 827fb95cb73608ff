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
  outputNames?: readonly string[];
  run(feeds: Record<string, unknown>, fetches?: readonly string[]): Promise<Record<string, OrtTensor>>;
}

/** The parts of a transformers.js WhisperForConditionalGeneration this uses. */
export interface WhisperSeq2Seq {
  sessions: Record<string, OrtSession>;
  forward(inputs: Record<string, unknown>): Promise<DecoderOutputs>;
  /** For the empty key/value cache of the alignment pass. */
  config: { decoder_attention_heads: number; d_model: number };
}

/** `logits` [1, tokens, vocab] and the `present.*` key/value cache. */
type DecoderOutputs = Record<string, Tensor> & { logits: Tensor };

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
  avgLogProb: number;
  noSpeechProb: number;
}

/** Tokens of earlier text kept as the prompt (openai: n_ctx / 2 - 1). */
export const MAX_PROMPT_TOKENS = 223;

export class WhisperWindowDecoder {
  readonly #model: WhisperSeq2Seq;
  readonly #tokens: WhisperSpecialTokens;

  constructor(model: WhisperSeq2Seq, tokens: WhisperSpecialTokens) {
    this.#model = model;
    this.#tokens = tokens;
  }

  /** Runs the encoder on input features [1, mel, 3000]. */
  async encode(inputFeatures: Tensor): Promise<Tensor> {
    const outputs = await this.#model.sessions.model!.run({ input_features: (inputFeatures as unknown as { ort_tensor: unknown }).ort_tensor });
    return new (Tensor as unknown as new (ortTensor: unknown) => Tensor)(outputs.last_hidden_state);
  }

  /** Whether the decoder outputs its cross-attention (`cross_attentions.N`, see scripts/test-models/lib/whisper-ct2.sh). */
  get outputsCrossAttention(): boolean {
    return this.#model.sessions.decoder_model_merged?.outputNames?.includes('cross_attentions.0') ?? false;
  }

  /**
   * The cross-attention of the given heads ([layer, head]) while the decoder reads `tokens` in
   * one pass, no cache: rows are tokens, columns the window's 1500 encoder frames. Straight on
   * the ONNX session, fetching only the layers asked for: all outputs of a full window (224
   * tokens) would be every layer's attention plus the key/value cache, tens of MB per pass.
   */
  async crossAttention(audioFeatures: Tensor, tokens: readonly number[], heads: readonly (readonly [number, number])[]): Promise<HeadAttention[]> {
    const session = this.#model.sessions.decoder_model_merged!;
    const audio = (audioFeatures as unknown as { ort_tensor: OrtTensor }).ort_tensor;
    const OrtTensor = audio.constructor as OrtTensorClass;
    const { decoder_attention_heads: headCount, d_model: width } = this.#model.config;
    const emptyCache = new OrtTensor('float32', new Float32Array(0), [1, headCount, 0, width / headCount]);
    const feeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids') feeds[name] = new OrtTensor('int64', BigInt64Array.from(tokens, (id) => BigInt(id)), [1, tokens.length]);
      else if (name === 'encoder_hidden_states') feeds[name] = audio;
      else if (name === 'use_cache_branch') feeds[name] = new OrtTensor('bool', Uint8Array.of(0), [1]);
      else if (name.startsWith('past_key_values')) feeds[name] = emptyCache;
      else throw new Error(`the decoder takes an input this pass does not know: ${name}`);
    }
    const layers = [...new Set(heads.map(([layer]) => layer))];
    const outputs = await session.run(feeds, layers.map((layer) => `cross_attentions.${layer}`));
    return heads.map(([layer, head]) => {
      const attention = outputs[`cross_attentions.${layer}`]!;
      const [, , rows, frames] = attention.dims as [number, number, number, number];
      const size = rows * frames;
      return { weights: (attention.data as Float32Array).slice(head * size, (head + 1) * size), tokens: rows, frames };
    });
  }

  async decode(request: WindowDecodeRequest): Promise<WindowDecodeResult> {
    const { eot, sot, sotPrev, noSpeech } = this.#tokens;
    const prompt = sotPrev !== undefined && request.prompt.length > 0 ? [sotPrev, ...request.prompt.slice(-MAX_PROMPT_TOKENS)] : [];
    const initial = [...prompt, ...request.startTokens];
    const sotIndex = prompt.length + Math.max(0, request.startTokens.indexOf(sot));
    const random = request.random ?? Math.random;

    // The first pass (prompt and start tokens, empty cache) goes through transformers.js, which
    // builds the empty cache; then one token per step straight on the ONNX session, skipping
    // transformers.js's wrapping of every input and output (~1 ms of a ~12 ms step, measured here).
    const first = await this.#model.forward({
      encoder_outputs: request.audioFeatures,
      decoder_input_ids: new Tensor('int64', BigInt64Array.from(initial, (id) => BigInt(id)), [1, initial.length]),
    });
    const vocab = first.logits.dims[2]!;
    let noSpeechProb = 0;
    if (noSpeech !== undefined) {
      const atSot = (first.logits.data as Float32Array).subarray(sotIndex * vocab, (sotIndex + 1) * vocab);
      noSpeechProb = Math.exp(logSoftmaxAt(atSot, noSpeech));
    }
    const past: Record<string, OrtTensor> = {};
    for (const [name, tensor] of Object.entries(first)) {
      if (name.startsWith('present')) past[name.replace('present', 'past_key_values')] = (tensor as unknown as { ort_tensor: OrtTensor }).ort_tensor;
    }
    const audio = (request.audioFeatures as unknown as { ort_tensor: OrtTensor }).ort_tensor;
    const OrtTensor = audio.constructor as OrtTensorClass;
    const session = this.#model.sessions.decoder_model_merged!;
    let last = { data: first.logits.data as Float32Array, rows: first.logits.dims[1]! };
    const sampled: number[] = [];
    let sumLogProb = 0;
    for (;;) {
      request.signal.throwIfAborted();
      const logits = last.data.slice((last.rows - 1) * vocab, last.rows * vocab);
      applyTimestampRules(logits, sampled, this.#tokens, { maxInitialTimestampIndex: request.maxInitialTimestampIndex });
      const token = request.temperature > 0 ? sample(logits, request.temperature, random) : argmax(logits);
      sumLogProb += logSoftmaxAt(logits, token);
      if (token === eot) break;
      sampled.push(token);
      if (sampled.length >= request.maxTokens) break;
      const feeds: Record<string, unknown> = {
        ...past,
        input_ids: new OrtTensor('int64', BigInt64Array.of(BigInt(token)), [1, 1]),
        encoder_hidden_states: audio,
        use_cache_branch: new OrtTensor('bool', Uint8Array.of(1), [1]),
      };
      const outputs = await session.run(Object.fromEntries(session.inputNames.map((name) => [name, feeds[name]])));
      // The self-attention cache grows by this token; the cross-attention one stays the first pass's.
      for (const [name, tensor] of Object.entries(outputs)) {
        if (name.startsWith('present') && !name.includes('encoder')) past[name.replace('present', 'past_key_values')] = tensor;
      }
      last = { data: outputs.logits!.data as Float32Array, rows: outputs.logits!.dims[1]! };
    }
    return { tokens: sampled, avgLogProb: sumLogProb / (sampled.length + 1), noSpeechProb };
  }
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index++) if (values[index]! > values[best]!) best = index;
  return best;
}

/** log softmax(values)[index]. */
export function logSoftmaxAt(values: Float32Array, index: number): number {
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
