/**
 * Decodes 30-s Whisper windows with timestamps, token by token, over the transformers.js
 * model's ONNX sessions (encoder_model, decoder_model_merged with its key/value cache), and
 * measures what openai/whisper's fallback rules need: the average log probability of the
 * sampled tokens and the probability of `<|nospeech|>` after `<|startoftranscript|>`.
 * transformers.js's generate() reports neither, hence this small loop of our own.
 *
 * Independent windows can be decoded in one batch: one decoder run per step for every window
 * still decoding (a lockstep decode, each row with its own timestamp rules, temperature and end). The exported decoder has no attention mask or
 * position ids: a row's positions are the cache length, the same for every row. So rows are
 * batched only with rows whose prompt and start tokens have the same lengths (no padding), and
 * a row that ends leaves the batch (its cache rows are dropped) rather than being masked. Windows
 * decoded with beam search or best-of sampling are batched the same way, each window's search its
 * own, their rows stepping together (#searchTogether) on the batch decoder whose cross-attention
 * is grouped by window (grouped-cross-attention.ts).
 */
import { Tensor } from '@huggingface/transformers';
import { applyTimestampRules } from '../decoding/whisper-timestamp-rules.js';
import { argmax, logSoftmaxAt, sample } from '../decoding/whisper-token-choice.js';
import { alikeRows } from './cache-rows.js';
import { decodeSearch, searchRows, type SearchOptions, type SearchResult, type SearchSession } from '../decoding/whisper-search-decode.js';
import { SearchBatchRows } from './search-batch-rows.js';
import { LOGITS_FROM } from '../graph/logits-from.js';
import { SelfAttentionRows } from './self-attention-rows.js';
import { pastInputName } from '../graph/self-attention-steps.js';
import { SearchStepsTogether } from './search-steps-together.js';
import type { SearchBatchFits } from '../long-form/whisper-batch-size.js';
import type { WhisperSpecialTokens } from '../decoding/whisper-special-tokens.js';
import type { HeadAttention } from '../decoding/word-timing.js';

/** An onnxruntime-node tensor, as the sessions take and give them. */
interface OrtTensor {
  type: string;
  data: unknown;
  dims: readonly number[];
}
type OrtTensorClass = new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  /**
   * Whether its cached cross-attention takes one row per window for all that window's rows, each
   * window's rows together (grouped-cross-attention.ts): several windows' searches can step in one run.
   */
  readonly groupsCrossRows?: boolean;
  /** `options.signal`: honoured by a session in a thread of its own (onnx-session-thread.ts), whose run may wait its turn. */
  run(feeds: Record<string, unknown>, fetches?: readonly string[], options?: { signal?: AbortSignal }): Promise<Record<string, OrtTensor>>;
}

/** The decoder's ONNX session, as the model holds it. */
export type WhisperDecoderSession = OrtSession;

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
  /** Beam search at temperature 0, best-of sampling above (whisper-search-decode.ts); none: one row. */
  search?: SearchOptions;
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

/** A decode's key/value cache between runs: the cross-attention's (`.encoder`, the same after the first run) and the self-attention's rows. */
export interface DecoderCache {
  encoder: Cache;
  selfAttention: SelfAttentionRows;
}

function ortTensorOf(tensor: Tensor): OrtTensor {
  return (tensor as unknown as { ort_tensor: OrtTensor }).ort_tensor;
}

function wrapTensor(ortTensor: OrtTensor): Tensor {
  return new (Tensor as unknown as new (ortTensor: unknown) => Tensor)(ortTensor);
}

type TypedArray = Float32Array | Uint16Array | BigInt64Array | Uint8Array;

/** Tensors [1, …] (or [n, …]) stacked along their first axis into one. */
function stackRows(tensors: readonly OrtTensor[]): OrtTensor {
  if (tensors.length === 1) return tensors[0]!;
  const first = tensors[0]!;
  const parts = tensors.map((tensor) => tensor.data as TypedArray);
  const data = new (parts[0]!.constructor as new (length: number) => TypedArray)(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    data.set(part as never, at);
    at += part.length;
  }
  const rows = tensors.reduce((sum, tensor) => sum + tensor.dims[0]!, 0);
  return new (first.constructor as OrtTensorClass)(first.type, data, [rows, ...first.dims.slice(1)]);
}

/**
 * The rows `keep` (ascending indices along the first axis) of a tensor the batch owns, moved to
 * the front of its own buffer: a copy would hold the rows twice (for large-v3 the cross-attention
 * cache is ~0.5 GB a window). The tensor must not be read afterwards.
 */
function keepRows(tensor: OrtTensor, keep: readonly number[]): OrtTensor {
  const data = tensor.data as TypedArray;
  const rowSize = data.length / tensor.dims[0]!;
  keep.forEach((row, index) => {
    if (row !== index) data.copyWithin(index * rowSize, row * rowSize, (row + 1) * rowSize);
  });
  return new (tensor.constructor as OrtTensorClass)(tensor.type, data.subarray(0, keep.length * rowSize), [keep.length, ...tensor.dims.slice(1)]);
}

/** One window of a lockstep batch and what its decode has produced so far. */
interface BatchRow {
  /** Its place in the batch's requests. */
  position: number;
  request: WindowDecodeRequest;
  random: () => number;
  sampled: number[];
  /** Each sampled token's log probability (include[]=logprobs). */
  tokenLogProbs: number[];
  sumLogProb: number;
  noSpeechProb: number;
}

export interface WhisperWindowDecoderOptions {
  batchDecoder?: () => Promise<OrtSession>;
  fitsSearchBatch?: SearchBatchFits;
}

export class WhisperWindowDecoder {
  readonly #model: WhisperSeq2Seq;
  readonly #tokens: WhisperSpecialTokens;
  /** Whether the decoder's attention broadcasts one row of cross-attention cache over many; unknown until a search step tries. */
  #broadcastsCrossRows: boolean | undefined;
  readonly #batchDecoder: (() => Promise<OrtSession>) | undefined;
  readonly #fitsSearchBatch: SearchBatchFits;

  /**
   * `batchDecoder`: the session decodes of several rows (beam search, best-of, a batch of windows)
   * run on instead of the model's decoder (the same graph with its weights pre-packed, opened when
   * first asked; asr-worker.ts). `fitsSearchBatch`: whether a number of windows' searches, each
   * of so many rows, may step in one run (decodeBatch; searchBatchFits, by threads and memory); by
   * default each window's search runs alone.
   */
  constructor(model: WhisperSeq2Seq, tokens: WhisperSpecialTokens, options: WhisperWindowDecoderOptions = {}) {
    this.#model = model;
    this.#tokens = tokens;
    this.#batchDecoder = options.batchDecoder;
    this.#fitsSearchBatch = options.fitsSearchBatch ?? (() => false);
  }

  get #decoder(): OrtSession {
    return this.#model.sessions.decoder_model_merged!;
  }

  /**
   * The pre-packed copy for decodes of several rows, or the model's decoder when there is none or
   * it cannot be opened (then slower).
   */
  async #severalRowsSession(): Promise<OrtSession> {
    return (await this.#batchDecoder?.().catch(() => undefined)) ?? this.#decoder;
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
      [tokens],
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
   * The decoder reading `tokens` (one equally long row per window of the batch) after the
   * key/value cache `past` (none: an empty cache), straight on the ONNX session (transformers.js's
   * wrapping of every input and output cost a noticeable share of a step; docs/benchmarks.md,
   * "Speech to text"), fetching only `fetches`. Everything a pass can output is, for 228 tokens,
   * logits for every token (47 MB for a 51,864-token vocabulary), every layer's cross-attention
   * (33 MB for tiny) and the caches: garbage the moment the next pass starts, which left to the
   * garbage collector set the worker's peak memory.
   */
  async #run(
    audio: OrtTensor,
    tokens: readonly (readonly number[])[],
    past: Cache | undefined,
    fetches: readonly string[],
    session = this.#decoder,
    logitsFrom = 0,
  ): Promise<Record<string, OrtTensor>> {
    const OrtTensor = audio.constructor as OrtTensorClass;
    const { decoder_attention_heads: headCount, d_model: width } = this.#model.config;
    const rows = tokens.length;
    const emptyCache = past ? undefined : new OrtTensor('float32', new Float32Array(0), [rows, headCount, 0, width / headCount]);
    // No positions shared by every row (self-attention-steps.ts): one empty row, which broadcasts.
    const noShared = new OrtTensor('float32', new Float32Array(0), [1, headCount, 0, width / headCount]);
    const feeds: Record<string, unknown> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids')
        feeds[name] = new OrtTensor(
          'int64',
          BigInt64Array.from(tokens.flat(), (id) => BigInt(id)),
          [rows, tokens[0]!.length],
        );
      else if (name === 'encoder_hidden_states') feeds[name] = audio;
      else if (name === 'use_cache_branch') feeds[name] = new OrtTensor('bool', Uint8Array.of(past ? 1 : 0), [1]);
      // A pass without logits asks for none of the tokens read: the output projection is skipped.
      else if (name === LOGITS_FROM)
        feeds[name] = new OrtTensor('int64', BigInt64Array.of(BigInt(fetches.includes('logits') ? logitsFrom : tokens[0]!.length)), [1]);
      else if (name.startsWith('past_key_values')) feeds[name] = past ? past[name] : emptyCache;
      else if (name.startsWith('shared.')) feeds[name] = past?.[name] ?? noShared;
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
  async #extend(
    audio: OrtTensor,
    tokens: readonly (readonly number[])[],
    past: DecoderCache | undefined,
    withLogits: boolean,
    session = this.#decoder,
    sources?: readonly number[],
    logitsFrom = 0,
  ): Promise<{ cache: DecoderCache; logits?: OrtTensor }> {
    const stepping = session.outputNames.some((name) => name.startsWith('step.'));
    const selfAttention = session.outputNames.filter((name) => name.startsWith(stepping ? 'step.' : 'present.') && name.includes('.decoder.'));
    const encoder = past ? [] : session.outputNames.filter((name) => name.startsWith('present.') && name.includes('.encoder.'));
    const fetches = [...(withLogits ? ['logits'] : []), ...selfAttention, ...encoder];
    const outputs = await this.#run(audio, tokens, past && { ...past.selfAttention.past(sources), ...past.encoder }, fetches, session, logitsFrom);
    const rows = past?.selfAttention ?? new SelfAttentionRows();
    rows.update(outputs);
    const cache = past?.encoder ?? Object.fromEntries(encoder.map((name) => [pastInputName(name), outputs[name]!]));
    return { cache: { encoder: cache, selfAttention: rows }, logits: outputs.logits };
  }

  async decode(request: WindowDecodeRequest): Promise<WindowDecodeResult> {
    if (searchRows(request) > 1) return decodeSearch(request, this.#tokens, this.#searchSession(request, await this.#severalRowsSession()));
    const [result] = await this.#decodeLockstep([request]);
    return result!;
  }

  /**
   * One window's rows for a beam search or best-of sampling: the prompt and start tokens read on
   * one row, then its cache grown to the group and reordered at every step. The audio and the
   * cross-attention cache are the same on every row, so each step is given their one row, which
   * the decoder's attention broadcasts over the group's rows (its MatMuls broadcast the batch
   * axis): no copy per row, and a step reads a fifth of the cache a 5-row copy would have it read
   * (docs/benchmarks.md, "Speech to text"). A decoder whose graph does not broadcast gets them
   * repeated to the group's size once.
   */
  #searchSession(request: WindowDecodeRequest, session: OrtSession): SearchSession {
    const groupSize = searchRows(request);
    let audio = ortTensorOf(request.audioFeatures);
    /** The cross-attention cache (`.encoder`): one row, or the group's size once repeated. */
    let encoder: Cache = {};
    /** The self-attention cache, one row per live beam or sample. */
    let selfAttention: SelfAttentionRows | undefined;
    let repeated = false;
    const repeat = () => {
      audio = alikeRows(audio, groupSize);
      encoder = Object.fromEntries(Object.entries(encoder).map(([name, tensor]) => [name, alikeRows(tensor, groupSize)]));
      repeated = true;
    };
    const read = (tokens: readonly number[]) => {
      const cross = (tensor: OrtTensor) => (repeated ? alikeRows(tensor, tokens.length) : tensor);
      return this.#extend(
        cross(audio),
        tokens.map((token) => [token]),
        { encoder: Object.fromEntries(Object.entries(encoder).map(([name, tensor]) => [name, cross(tensor)])), selfAttention: selfAttention! },
        true,
        session,
      );
    };
    return {
      start: async () => {
        const start = await this.#readStart(audio, [request], session);
        ({ encoder, selfAttention } = start.cache);
        // Every beam or sample starts from the prompt and start tokens: a decoder that can read them once for all rows does.
        if (session.inputNames.some((name) => name.startsWith('shared.'))) selfAttention.share();
        const [, steps, vocab] = start.logits.dims as [number, number, number];
        const data = start.logits.data as Float32Array;
        return { logits: data.subarray((steps - 1) * vocab, steps * vocab), noSpeechProb: this.#noSpeechProb(start.logits, 0, request) };
      },
      step: async (sources, tokens) => {
        // The rows move once, before the run (a retried run reads them as they are).
        selfAttention!.past(sources);
        if (this.#broadcastsCrossRows === false && !repeated) repeat();
        let step: Awaited<ReturnType<typeof read>>;
        try {
          step = await read(tokens);
        } catch (error) {
          // The first search step on a decoder that does not broadcast: repeat the rows from now on.
          if (repeated || this.#broadcastsCrossRows || sources.length === 1) throw error;
          this.#broadcastsCrossRows = false;
          repeat();
          step = await read(tokens);
        }
        if (!repeated && sources.length > 1) this.#broadcastsCrossRows = true;
        const data = step.logits!.data as Float32Array;
        const vocab = step.logits!.dims[2]!;
        return tokens.map((_, row) => data.subarray(row * vocab, (row + 1) * vocab));
      },
    };
  }

  /**
   * Decodes independent windows, each as `decode` would alone (same tokens for the same
   * request), in lockstep batches: one per length of prompt and start tokens, in the order
   * given, greedy windows first, then those searched (beam search, best-of), whose beams or
   * samples step together (#searchTogether). Every request's signal is checked at every step; the
   * caller picks how many windows to pass at once (whisperBatchSize); a run of searches holds
   * what fitsSearchBatch allows (#searchBatches). `onDecoded(index, result)`
   * hears of each request as soon as its decode ends, while the batch goes on with the others.
   */
  async decodeBatch(requests: readonly WindowDecodeRequest[], onDecoded?: (index: number, result: WindowDecodeResult) => void): Promise<WindowDecodeResult[]> {
    const plain = new Map<string, number[]>();
    const searched = new Map<string, number[]>();
    requests.forEach((request, index) => {
      const groups = searchRows(request) > 1 ? searched : plain;
      const key = `${this.#prompt(request).length}/${request.startTokens.length}`;
      groups.set(key, [...(groups.get(key) ?? []), index]);
    });
    const results: WindowDecodeResult[] = new Array(requests.length);
    const decoded = (index: number, result: WindowDecodeResult) => {
      results[index] = result;
      onDecoded?.(index, result);
    };
    for (const indices of plain.values()) {
      await this.#decodeLockstep(
        indices.map((index) => requests[index]!),
        (position, result) => decoded(indices[position]!, result),
      );
    }
    for (const sameLengths of searched.values()) {
      const session = await this.#severalRowsSession();
      // Without grouped cross-attention each row would read a copy of its window's cache, which costs what the batch saves.
      const batches = session.groupsCrossRows
        ? this.#searchBatches(sameLengths.map((index) => [index, searchRows(requests[index]!)]))
        : sameLengths.map((index) => [index]);
      for (const indices of batches) {
        if (indices.length === 1) decoded(indices[0]!, await this.decode(requests[indices[0]!]!));
        else
          await this.#searchTogether(
            indices.map((index) => requests[index]!),
            session,
            (position, result) => decoded(indices[position]!, result),
          );
      }
    }
    return results;
  }

  /**
   * Searched windows (`[index, rows]`, in order) in batches fitsSearchBatch allows, so that a run
   * of searches together never holds more: every window of a batch holds as many rows as its
   * largest (SearchBatchRows pads), so a batch is its windows times that. A window alone is
   * decoded alone, whatever the bound.
   */
  #searchBatches(windows: readonly (readonly [number, number])[]): number[][] {
    const batches: number[][] = [];
    let widest = 0;
    for (const [index, windowRows] of windows) {
      const batch = batches.at(-1);
      const wider = Math.max(widest, windowRows);
      if (batch && this.#fitsSearchBatch(batch.length + 1, wider)) {
        batch.push(index);
        widest = wider;
      } else {
        batches.push([index]);
        widest = windowRows;
      }
    }
    return batches;
  }

  /**
   * Searches of several windows (prompts and start tokens of equal lengths), each with its own
   * search state (decodeSearch) and results as alone, their rows read by one decoder run per
   * step on `session` (its cross-attention grouped by window): the windows' start tokens on one
   * row each, then every window's beams or samples in one batch (SearchBatchRows). What a step
   * costs besides the cross-attention (the weights, the 51,864-wide output projection) is then
   * paid once for all the windows: on tiny.en, 1 thread, 4 windows × 5 beams in ~41 ms against
   * ~17 ms for one window's 5 (docs/benchmarks.md, "Speech to text").
   */
  async #searchTogether(
    requests: readonly WindowDecodeRequest[],
    session: OrtSession,
    onDecoded: (position: number, result: SearchResult) => void,
  ): Promise<void> {
    let rows: SearchBatchRows | undefined;
    const together = new SearchStepsTogether(requests.length, async (steps) => {
      const input = rows!.next(steps);
      const step = await this.#extend(
        input.audio,
        input.tokens.map((token) => [token]),
        input.past,
        true,
        session,
      );
      return rows!.split(step.logits!);
    });
    const started = (async () => {
      const audio = stackRows(requests.map((request) => ortTensorOf(request.audioFeatures)));
      const start = await this.#readStart(audio, requests, session);
      rows = new SearchBatchRows(start.cache, audio);
      return start.logits;
    })();
    const searches = requests.map(async (request, group) => {
      try {
        const result = await decodeSearch(request, this.#tokens, {
          start: async () => {
            const logits = await started;
            const [, steps, vocab] = logits.dims as [number, number, number];
            const at = (group * steps + steps - 1) * vocab;
            return { logits: (logits.data as Float32Array).subarray(at, at + vocab), noSpeechProb: this.#noSpeechProb(logits, group, request) };
          },
          step: (sources, tokens) => together.step(group, sources, tokens),
        });
        together.leave(group);
        onDecoded(group, result);
      } catch (error) {
        together.fail(error);
        throw error;
      }
    });
    const settled = await Promise.allSettled(searches);
    const failure = settled.find((one) => one.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** `sotPrev` and the last of the request's prompt, or nothing. */
  #prompt(request: WindowDecodeRequest): number[] {
    const { sotPrev } = this.#tokens;
    return sotPrev !== undefined && request.prompt.length > 0 ? [sotPrev, ...request.prompt.slice(-MAX_PROMPT_TOKENS)] : [];
  }

  /**
   * Reads each request's prompt and then its start tokens, one row each (prompts and start tokens of
   * equal lengths): the cache after them and the start tokens' logits. A session that takes
   * LOGITS_FROM reads both in one pass, its logits from the start tokens on. On another the prompt
   * is read a chunk at a time, without its logits: read at once, a full prompt's would be 47 MB per
   * window for the few rows the start tokens need (same cache, same logits after).
   */
  async #readStart(audio: OrtTensor, requests: readonly WindowDecodeRequest[], session = this.#decoder): Promise<{ cache: DecoderCache; logits: OrtTensor }> {
    const prompts = requests.map((request) => this.#prompt(request));
    if (session.inputNames.includes(LOGITS_FROM)) {
      // Its logits start where asked: prompt and start tokens in one pass, logits for the latter only.
      const start = await this.#extend(
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
      ({ cache: past } = await this.#extend(
        audio,
        prompts.map((prompt) => prompt.slice(at, at + PROMPT_CHUNK_TOKENS)),
        past,
        false,
        session,
      ));
    }
    const start = await this.#extend(
      audio,
      requests.map((request) => request.startTokens),
      past,
      true,
      session,
    );
    return { cache: start.cache, logits: start.logits! };
  }

  /** Row `row`'s probability of no speech, read at its `<|startoftranscript|>` in the start tokens' logits; 0 for models without the token. */
  #noSpeechProb(logits: OrtTensor, row: number, request: WindowDecodeRequest): number {
    const { sot, noSpeech } = this.#tokens;
    if (noSpeech === undefined) return 0;
    const vocab = logits.dims[2]!;
    const at = (row * logits.dims[1]! + Math.max(0, request.startTokens.indexOf(sot))) * vocab;
    return Math.exp(logSoftmaxAt((logits.data as Float32Array).subarray(at, at + vocab), noSpeech));
  }

  /**
   * Requests whose prompts and start tokens have the same lengths, decoded one step at a time
   * together; `onDecoded(position, result)` as each row ends.
   */
  async #decodeLockstep(
    requests: readonly WindowDecodeRequest[],
    onDecoded?: (position: number, result: WindowDecodeResult) => void,
  ): Promise<WindowDecodeResult[]> {
    const { eot } = this.#tokens;
    let audio = stackRows(requests.map((request) => ortTensorOf(request.audioFeatures)));
    // Unpacked, every step of several rows packs the output projection's weight again (80 MB for
    // tiny.en): a batch runs on the pre-packed decoder, as beam search does.
    const session = requests.length > 1 ? await this.#severalRowsSession() : this.#decoder;
    const start = await this.#readStart(audio, requests, session);
    const past = start.cache;
    let logits = start.logits;
    const vocab = logits.dims[2]!;
    const rows: BatchRow[] = requests.map((request, row) => ({
      position: row,
      request,
      random: request.random ?? Math.random,
      sampled: [],
      tokenLogProbs: [],
      sumLogProb: 0,
      noSpeechProb: this.#noSpeechProb(logits, row, request),
    }));
    let live = rows;
    for (;;) {
      const steps = logits.dims[1]!;
      const data = logits.data as Float32Array;
      /** Positions in the batch of the rows that go on, and their next tokens. */
      const keep: number[] = [];
      const next: number[][] = [];
      live.forEach((row, position) => {
        row.request.signal.throwIfAborted();
        const at = (position * steps + steps - 1) * vocab;
        // In place: this step's logits are read once, here.
        const rowLogits = data.subarray(at, at + vocab);
        applyTimestampRules(rowLogits, row.sampled, this.#tokens, { maxInitialTimestampIndex: row.request.maxInitialTimestampIndex });
        const { temperature } = row.request;
        const token = temperature > 0 ? sample(rowLogits, temperature, row.random) : argmax(rowLogits);
        const logProb = logSoftmaxAt(rowLogits, token, temperature > 0 ? undefined : rowLogits[token]);
        row.sumLogProb += logProb;
        if (token === eot) return void onDecoded?.(row.position, resultOf(row));
        row.sampled.push(token);
        row.tokenLogProbs.push(logProb);
        if (row.sampled.length >= row.request.maxTokens) return void onDecoded?.(row.position, resultOf(row));
        keep.push(position);
        next.push([token]);
      });
      if (keep.length === 0) break;
      if (keep.length < live.length) {
        // Finished rows leave the batch (the decoder has no mask to skip them with): moving the
        // others' caches up costs less than the steps they would take along. Only a batch of two
        // or more gets here, whose audio was stacked into a buffer of its own.
        audio = keepRows(audio, keep);
        for (const [name, tensor] of Object.entries(past.encoder)) past.encoder[name] = keepRows(tensor, keep);
        past.selfAttention.past(keep);
        live = keep.map((position) => live[position]!);
      }
      const step = await this.#extend(audio, next, past, true, session);
      logits = step.logits!;
    }
    return rows.map(resultOf);
  }
}

function resultOf(row: BatchRow): WindowDecodeResult {
  return {
    tokens: row.sampled,
    tokenLogProbs: row.tokenLogProbs,
    avgLogProb: row.sumLogProb / (row.sampled.length + 1),
    noSpeechProb: row.noSpeechProb,
  };
}
