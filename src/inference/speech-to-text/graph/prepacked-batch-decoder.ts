/**
 * The Whisper decoder opened a second time with onnxruntime's weight pre-packing, for decodes of
 * several rows only (beam search, best-of sampling, a batch of VAD windows), when the model's own
 * sessions run without it (fp32, AsrOptions.prepackWeights). Unpacked, a MatMul of more than one
 * row packs its weight on every call: for a 5-row step that is the output projection's whole tied
 * embedding (80 MB for tiny.en), which made it cost several 1-row steps; pre-packed, little more
 * than one (docs/benchmarks.md, "Speech to text"). Opened on the first such decode, so a server that only
 * transcribes short clips greedily holds no packed copy; 1-row decodes keep the unpacked session,
 * their tokens and memory unchanged. The copy costs
 * about the decoder's weights again, so a decoder above MAX_PREPACKED_DECODER_BYTES (small and up)
 * is not copied: its rows run unpacked, slower, within the memory the model declares.
 *
 * The copy's graph has its cached cross-attention grouped by window (grouped-cross-attention.ts),
 * so that several windows' beams can step in one run (search-batch-rows.ts); it returns only the
 * self-attention positions each run read and takes the positions all rows share from one row
 * (self-attention-steps.ts), so that the cache stays on our side between steps
 * (self-attention-rows.ts); and it computes logits only from `logits_from` on (logits-from.ts), so
 * that a prompt read into the cache skips the output projection. What the rewrites apply to is read
 * when the model loads (`plan`, logged by the worker); a graph that cannot be rewritten is opened
 * as it is (`groupsCrossRows` false, no step outputs, no `logits_from`), and a rewrite onnxruntime
 * refuses is an error logged with its cause before the graph is opened as it is.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Logger } from '../../../logger.js';
import type { Dtype } from '../asr-options.js';
import { crossRowsSupport } from './cross-rows-support.js';
import { groupCrossAttention } from './grouped-cross-attention.js';
import { addLogitsFrom } from './logits-from.js';
import { addSelfAttentionSteps } from './self-attention-steps.js';
import type { WhisperDecoderSession } from '../decoder/decoder-passes.js';

/** 512 MiB: tiny and base fp32 (their decoders: 208 and 118 MB here); small (~600 MB) and up are not copied. */
const MAX_PREPACKED_DECODER_BYTES = 512 * 1024 * 1024;

/** What the rewrites change in the graph (none of them: it is opened as it is). */
export interface RewritePlan {
  groupedLayers: number;
  stepOutputs: number;
  logitsFrom: boolean;
}

/** The graph rewritten, and what changed. */
function rewrite(graph: Uint8Array): { model: Uint8Array; plan: RewritePlan } {
  const grouped = groupCrossAttention(graph);
  const stepped = addSelfAttentionSteps(grouped.model);
  const sliced = addLogitsFrom(stepped.model);
  return { model: sliced.model, plan: { groupedLayers: grouped.layers, stepOutputs: stepped.outputs, logitsFrom: sliced.added } };
}

function rewrites(plan: RewritePlan): boolean {
  return plan.groupedLayers > 0 || plan.stepOutputs > 0 || plan.logitsFrom;
}

export class PrepackedBatchDecoder {
  readonly #file: string;
  readonly #options: ort.InferenceSession.SessionOptions;
  readonly #log: Pick<Logger, 'error'>;
  #session: Promise<{ session: ort.InferenceSession; groupsCrossRows: boolean; broadcastsCrossRows: boolean }> | undefined;

  /**
   * The fp32 decoder of `modelDir` with `sessionOptions` (the model's own, pre-packing on), or
   * undefined for another dtype (its sessions pre-pack already unless told not to), a model
   * without that file, or a decoder too large to hold twice (MAX_PREPACKED_DECODER_BYTES).
   */
  static of(
    modelDir: string,
    dtype: Dtype,
    sessionOptions: ort.InferenceSession.SessionOptions,
    log: Pick<Logger, 'error'> = { error: () => {} },
  ): PrepackedBatchDecoder | undefined {
    return PrepackedBatchDecoder.choose(modelDir, dtype).use
      ? new PrepackedBatchDecoder(join(modelDir, 'onnx', 'decoder_model_merged.onnx'), sessionOptions, log)
      : undefined;
  }

  /** Whether `of` gives a copy for this model, and why (for the line the worker logs at load). */
  static choose(modelDir: string, dtype: Dtype): { use: boolean; reason: string } {
    const decoderDtype = typeof dtype === 'string' ? dtype : dtype.decoder_model_merged;
    const file = join(modelDir, 'onnx', 'decoder_model_merged.onnx');
    if (decoderDtype !== 'fp32') return { use: false, reason: `its decoder is ${decoderDtype ?? 'not fp32'}, not fp32` };
    if (!existsSync(file)) return { use: false, reason: 'it has no onnx/decoder_model_merged.onnx' };
    const bytes = weightBytes(file);
    if (bytes > MAX_PREPACKED_DECODER_BYTES)
      return { use: false, reason: `its decoder (${mib(bytes)} MiB) is over ${mib(MAX_PREPACKED_DECODER_BYTES)} MiB to hold twice` };
    return { use: true, reason: `its fp32 decoder (${mib(bytes)} MiB) runs unpacked` };
  }

  private constructor(file: string, options: ort.InferenceSession.SessionOptions, log: Pick<Logger, 'error'>) {
    this.#file = file;
    this.#options = options;
    this.#log = log;
  }

  /** What the rewrites change in this graph, read now (at load) and let go: `session()` rewrites again when it opens. */
  async plan(): Promise<RewritePlan> {
    return rewrite(await readFile(this.#file)).plan;
  }

  /** The session, opened on the first call. */
  async session(): Promise<WhisperDecoderSession> {
    this.#session ??= this.#open();
    const { session, groupsCrossRows, broadcastsCrossRows } = await this.#session;
    return {
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      groupsCrossRows,
      broadcastsCrossRows,
      run: (feeds, fetches) => session.run(feeds as ort.InferenceSession.FeedsType, fetches as string[]) as never,
    };
  }

  async #open(): Promise<{ session: ort.InferenceSession; groupsCrossRows: boolean; broadcastsCrossRows: boolean }> {
    const graph = await readFile(this.#file);
    const rewritten = rewrite(graph);
    if (rewrites(rewritten.plan)) {
      // From memory, the graph's external data is found through this folder rather than the file's.
      const options = {
        ...this.#options,
        extra: withSessionConfig(this.#options.extra, { model_external_initializers_file_folder_path: dirname(this.#file) }),
      };
      try {
        const session = await ort.InferenceSession.create(rewritten.model, options);
        return { session, groupsCrossRows: rewritten.plan.groupedLayers > 0, broadcastsCrossRows: crossRowsSupport(rewritten.model).broadcasts };
      } catch (error) {
        this.#log.error('whisper decoder: onnxruntime refused the rewritten graph; decodes of several rows run on the graph as it is, pre-packed', {
          file: this.#file,
          cause: error,
        });
      }
    }
    return {
      session: await ort.InferenceSession.create(this.#file, this.#options),
      groupsCrossRows: false,
      broadcastsCrossRows: crossRowsSupport(graph).broadcasts,
    };
  }

  async dispose(): Promise<void> {
    await (await this.#session?.catch(() => undefined))?.session.release();
  }
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
