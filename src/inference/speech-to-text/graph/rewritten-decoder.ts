/**
 * The one Whisper decoder session every decode of ours runs on (one row, beam search, best-of, a
 * batch of windows; any dtype, any size): the model's decoder_model_merged graph rewritten, opened
 * at load in place of the session transformers.js opened, which is then released (the pipeline
 * gets the rewritten one behind optimum's names, decoder/pipeline-decoder-session.ts).
 *
 * The rewrites: cached cross-attention grouped by window (grouped-cross-attention.ts), so that
 * several windows' beams can step in one run (search-batch-rows.ts); only the self-attention
 * positions each run read are returned, and the positions all rows share are taken from one row
 * (self-attention-steps.ts), so that the cache stays on our side between steps
 * (self-attention-rows.ts) rather than being fetched whole at every step, one row or many (in a
 * graph that quantizes activations per run, q8, joined: past and new still concatenated in the
 * graph, so that its quantizers read what they read before and the tokens cannot change); and
 * logits only from `logits_from` on (logits-from.ts), so that a prompt read into the cache skips
 * the output projection. What applies is read when the model loads (`plan`, logged by the
 * worker); a graph none applies to, or one onnxruntime refuses (an error logged with its cause),
 * leaves the model's own session in place.
 *
 * Pre-packing: a session that runs unpacked packs a MatMul's weight on every call of more than one
 * row: for a 5-row step that is the output projection's whole tied embedding (80 MB for tiny.en),
 * which made it cost several 1-row steps (docs/benchmarks.md, "Speech to text"). So the session
 * pre-packs when the model's do (q8), and an fp32 decoder up to MAX_PREPACKED_DECODER_BYTES (tiny,
 * base) pre-packs too, which holds its tied embedding twice (the token lookup reads it unpacked);
 * a larger fp32 decoder (small and up) stays unpacked, within the memory the model declares.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Logger } from '../../../logger.js';
import type { Dtype } from '../asr-options.js';
import { crossRowsSupport, decoderFile } from './cross-rows-support.js';
import { groupCrossAttention } from './grouped-cross-attention.js';
import { addLogitsFrom } from './logits-from.js';
import { addSelfAttentionSteps } from './self-attention-steps.js';
import type { WhisperDecoderSession } from '../decoder/decoder-passes.js';

/** 512 MiB: tiny and base fp32 (their decoders: 208 and 118 MB here); small (~600 MB) and up stay unpacked. */
const MAX_PREPACKED_DECODER_BYTES = 512 * 1024 * 1024;

/** What the rewrites change in the graph (none of them: it is opened as it is). */
export interface RewritePlan {
  groupedLayers: number;
  stepOutputs: number;
  logitsFrom: boolean;
  /** Whether the graph quantizes activations per run (q8): its self-attention steps are then joined, not split. */
  quantizesPerRun: boolean;
}

/** The rewritten session, with what transformers.js reads of a session besides `run`. */
export interface RewrittenSession extends WhisperDecoderSession {
  inputMetadata: readonly ort.InferenceSession.ValueMetadata[];
  release(): Promise<void>;
}

/** Which rewrites to leave out (tests and benches comparing with and without them). */
export interface RewriteChoice {
  /** false: presents fetched whole, as before the step outputs (self-attention-steps.ts). */
  selfAttentionSteps?: boolean;
}

/** The graph rewritten, and what changed. */
function rewrite(graph: Uint8Array, choice: RewriteChoice): { model: Uint8Array; plan: RewritePlan } {
  const grouped = groupCrossAttention(graph);
  const quantized = quantizesPerRun(graph);
  // Split, the self-attention sums its parts in another order: rounding, which q8's quantizers
  // after the attention turn into other tokens (a Spanish file lost a sentence), so q8's are joined.
  const stepped = choice.selfAttentionSteps === false ? { model: grouped.model, outputs: 0 } : addSelfAttentionSteps(grouped.model, { joined: quantized });
  const sliced = addLogitsFrom(stepped.model);
  return {
    model: sliced.model,
    plan: { groupedLayers: grouped.layers, stepOutputs: stepped.outputs, logitsFrom: sliced.added, quantizesPerRun: quantized },
  };
}

export function rewrites(plan: RewritePlan): boolean {
  return plan.groupedLayers > 0 || plan.stepOutputs > 0 || plan.logitsFrom;
}

export class RewrittenDecoder {
  readonly #file: string;
  readonly #options: ort.InferenceSession.SessionOptions;
  readonly #choice: RewriteChoice;

  /**
   * The decoder of `modelDir` in `dtype`, opened with `sessionOptions`, with every rewrite but those
   * `choice` leaves out; undefined when transformers.js would find no such file.
   */
  static of(modelDir: string, dtype: Dtype, sessionOptions: ort.InferenceSession.SessionOptions, choice: RewriteChoice = {}): RewrittenDecoder | undefined {
    const file = decoderFile(modelDir, dtype);
    return file && existsSync(file) ? new RewrittenDecoder(file, sessionOptions, choice) : undefined;
  }

  /**
   * Whether the rewritten session pre-packs its weights, and why (for the line the worker logs at
   * load): always when the model's sessions do (`modelPrepacks`), else for an fp32 decoder small
   * enough to hold its tied embedding twice.
   */
  static prepacks(modelDir: string, dtype: Dtype, modelPrepacks: boolean): { prepack: boolean; reason: string } {
    if (modelPrepacks) return { prepack: true, reason: "the model's sessions pre-pack their weights" };
    const file = decoderFile(modelDir, dtype);
    if (!file || !existsSync(file)) return { prepack: false, reason: `no decoder file where transformers.js keeps dtype ${JSON.stringify(dtype)}` };
    const bytes = weightBytes(file);
    if (bytes > MAX_PREPACKED_DECODER_BYTES)
      return { prepack: false, reason: `its decoder (${mib(bytes)} MiB) is over ${mib(MAX_PREPACKED_DECODER_BYTES)} MiB to hold its tied embedding twice` };
    return { prepack: true, reason: `its decoder (${mib(bytes)} MiB) is small enough to hold its tied embedding twice, packed and not` };
  }

  private constructor(file: string, options: ort.InferenceSession.SessionOptions, choice: RewriteChoice) {
    this.#file = file;
    this.#options = options;
    this.#choice = choice;
  }

  get file(): string {
    return this.#file;
  }

  /** What the rewrites change in this graph, read now and let go: `open()` rewrites again. */
  async plan(): Promise<RewritePlan> {
    return rewrite(await readFile(this.#file), this.#choice).plan;
  }

  /**
   * The rewritten session, or undefined when no rewrite applies or onnxruntime refuses the
   * rewritten graph (logged with its cause): the model's own session then stays.
   */
  async open(log: Pick<Logger, 'error'> = { error: () => {} }): Promise<RewrittenSession | undefined> {
    const rewritten = rewrite(await readFile(this.#file), this.#choice);
    if (!rewrites(rewritten.plan)) return undefined;
    // From memory, the graph's external data is found through this folder rather than the file's.
    const options = {
      ...this.#options,
      extra: withSessionConfig(this.#options.extra, { model_external_initializers_file_folder_path: dirname(this.#file) }),
    };
    try {
      const session = await ort.InferenceSession.create(rewritten.model, options);
      return {
        inputNames: session.inputNames,
        outputNames: session.outputNames,
        inputMetadata: session.inputMetadata,
        groupsCrossRows: rewritten.plan.groupedLayers > 0,
        broadcastsCrossRows: crossRowsSupport(rewritten.model).broadcasts,
        quantizesPerRun: rewritten.plan.quantizesPerRun,
        run: (feeds, fetches) => session.run(feeds as ort.InferenceSession.FeedsType, fetches as string[]) as never,
        release: () => session.release(),
      };
    } catch (error) {
      log.error("whisper decoder: onnxruntime refused the rewritten graph; decodes run on the model's decoder as it is", {
        file: this.#file,
        cause: error,
      });
      return undefined;
    }
  }
}

/** Whether the graph quantizes activations as it runs (onnxruntime's dynamic quantization, our q8 files). */
function quantizesPerRun(model: Uint8Array): boolean {
  return Buffer.from(model.buffer, model.byteOffset, model.byteLength).includes('DynamicQuantizeLinear');
}

/** Session options' `extra` with more `session.*` config entries. */
function withSessionConfig(extra: unknown, entries: Record<string, string>): Record<string, unknown> {
  const base = (extra ?? {}) as Record<string, unknown>;
  return { ...base, session: { ...(base.session as Record<string, unknown> | undefined), ...entries } };
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

/** The graph file and its external data, when the weights are kept beside it. */
function weightBytes(file: string): number {
  const data = `${file}_data`;
  return statSync(file).size + (existsSync(data) ? statSync(data).size : 0);
}
