/**
 * Worker thread that owns one tokenizer and ONNX model. Tokenisation, the forward pass
 * (onnxruntime-node runs it synchronously on the calling thread) and pooling all happen here, so
 * the HTTP event loop never waits on them. Each call is one micro-batch from the main thread,
 * split into length buckets to keep padding small.
 */
import { threadSessionOptions } from '../ort-threads.js';
import { configureRuntime } from '../runtime.js';
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';
import type { BatchModelApi, BatchModelInit, ForwardResult, ForwardStages, ModelFacts } from './batch-model-protocol.js';
import { lengthBuckets, RUN_TOKENS } from './length-buckets.js';
import { AutoModel, AutoModelForSequenceClassification, AutoTokenizer } from '@huggingface/transformers';
import {
  clsPooledRows,
  encodeTexts,
  logitRows,
  meanPooledRows,
  paddedInputs,
  runSession,
  selectRows,
  tokenCounts,
  type ModelInputs,
  type Padding,
  type TensorLike,
} from './model-io.js';

/** The durations of ForwardStages, summed over a call's length buckets. */
type StepTimes = Pick<ForwardStages, 'tokenizeMs' | 'runMs' | 'poolMs'>;

/** Rows (which may be views into model output buffers) copied into one transferable buffer. */
function pack(rows: Float32Array[]): ForwardResult {
  const width = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * width);
  rows.forEach((row, index) => data.set(row, index * width));
  return { data, width };
}

/**
 * Truncation's limit: the tokenizer's model_max_length, or the position embeddings when the
 * tokenizer leaves it unset (transformers writes a huge placeholder then).
 */
function windowTokens(tokenizerMax: number | undefined, positions: number | undefined): number | undefined {
  if (tokenizerMax !== undefined && Number.isSafeInteger(tokenizerMax) && tokenizerMax > 0 && tokenizerMax <= 1_000_000) return tokenizerMax;
  return positions;
}

serveWorker<BatchModelApi, BatchModelInit>(async (init) => {
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const Model = init.head === 'sequence-classification' ? AutoModelForSequenceClassification : AutoModel;
  // A spinning pool stops when its run ends unless told otherwise (the solo session, whose spin is bounded).
  const threadOptions = init.threads
    ? threadSessionOptions({ threads: init.threads, spinning: init.spinning ?? false, stopSpinningAfterRun: init.stopSpinningAfterRun ?? true })
    : {};
  // Without the arena a batch of long texts gives its buffers back when it ends (EncoderOptions.memoryArena).
  const session_options = { ...threadOptions, enableCpuMemArena: init.memoryArena ?? false };
  const [tokenizer, model] = await Promise.all([
    AutoTokenizer.from_pretrained(init.dir),
    Model.from_pretrained(init.dir, { dtype: init.dtype, session_options }),
  ]);
  const config = model.config as unknown as ModelFacts & { max_position_embeddings?: number };
  const facts: ModelFacts = {
    id2label: config.id2label,
    label2id: config.label2id,
    problem_type: config.problem_type,
    maxInputTokens: windowTokens((tokenizer as { model_max_length?: number }).model_max_length, config.max_position_embeddings),
  };

  // The session itself, as the Whisper engine runs its own: the model's forward() only wraps it.
  const session = (model as unknown as { sessions: { model: Parameters<typeof runSession>[0] } }).sessions.model;
  const forwardInputs = async (inputs: ModelInputs, stages: StepTimes | undefined): Promise<Float32Array[]> => {
    const started = stages && performance.now();
    const outputs = await runSession(session, inputs);
    const ran = stages && performance.now();
    const rows = readRows(outputs, inputs);
    if (stages) {
      stages.runMs += (ran as number) - (started as number);
      stages.poolMs += performance.now() - (ran as number);
    }
    return rows;
  };
  const readRows = (outputs: Record<string, TensorLike>, inputs: ModelInputs): Float32Array[] => {
    if (init.head === 'sequence-classification') return logitRows(outputs, 'logits');
    const hidden = outputs.last_hidden_state;
    if (!hidden) throw new Error('feature-extraction model has no last_hidden_state output');
    return init.pooling === 'cls' ? clsPooledRows(hidden) : meanPooledRows(hidden, inputs.attention_mask as TensorLike);
  };

  const paddingSide = tokenizer.padding_side === 'left' ? 'left' : 'right';
  const padding: Padding = { inputNames: Object.keys(tokenizer('a')), padId: tokenizer.pad_token_id ?? 0, side: paddingSide };
  /** The length `tokenizer(texts, { truncation: true, max_length })` cuts at. */
  const maxTokens = Math.min(init.maxTokens ?? Infinity, (tokenizer as { model_max_length?: number }).model_max_length ?? Infinity);

  /** Runs `ids` in length buckets, each padded to its own longest text. */
  const forwardIds = async (ids: number[][], stages: StepTimes | undefined): Promise<Float32Array[]> => {
    const rows: Float32Array[] = new Array(ids.length);
    const lengths = ids.map((row) => row.length);
    for (const bucket of lengthBuckets(lengths, { runTokens: RUN_TOKENS, maxBucketSize: init.maxBatchSize })) {
      const started = stages && performance.now();
      const inputs = paddedInputs(ids, bucket, padding);
      if (stages) stages.tokenizeMs += performance.now() - (started as number);
      const out = await forwardInputs(inputs, stages);
      bucket.forEach((index, position) => (rows[index] = out[position] as Float32Array));
    }
    return rows;
  };

  /**
   * Pairs, and texts to truncate: the tokenizer's own call, padded to the batch's longest, then
   * cut per length bucket without a second tokenisation.
   */
  const forwardTokenized = async (texts: string[], pairs: string[] | undefined, stages: StepTimes | undefined): Promise<Float32Array[]> => {
    const started = stages && performance.now();
    const inputs = tokenizer(texts, {
      ...(pairs ? { text_pair: pairs } : {}),
      padding: true,
      truncation: true,
      ...(init.maxTokens === undefined ? {} : { max_length: init.maxTokens }),
    }) as ModelInputs;
    if (stages) stages.tokenizeMs += performance.now() - (started as number);
    if (texts.length === 1) return forwardInputs(inputs, stages);
    const lengths = tokenCounts(inputs.attention_mask as TensorLike);
    const rows: Float32Array[] = new Array(texts.length);
    for (const bucket of lengthBuckets(lengths, { runTokens: RUN_TOKENS, maxBucketSize: init.maxBatchSize })) {
      const width = Math.max(...bucket.map((index) => lengths[index] as number));
      const out = await forwardInputs(selectRows(inputs, bucket, width, paddingSide), stages);
      bucket.forEach((index, position) => (rows[index] = out[position] as Float32Array));
    }
    return rows;
  };

  /** A micro-batch, split into length buckets to keep padding small. */
  const forward = async (texts: string[], pairs: string[] | undefined, stages?: StepTimes): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    const started = stages && performance.now();
    const ids = pairs ? undefined : encodeTexts(tokenizer, texts, maxTokens);
    if (stages) stages.tokenizeMs += performance.now() - (started as number);
    return ids ? forwardIds(ids, stages) : forwardTokenized(texts, pairs, stages);
  };

  return {
    facts: () => facts,
    async forward({ texts, pairs, profile }) {
      const receivedAt = profile ? performance.timeOrigin + performance.now() : 0;
      const stages = profile ? { tokenizeMs: 0, runMs: 0, poolMs: 0 } : undefined;
      const rows = await forward(texts, pairs, stages);
      const packing = stages && performance.now();
      const result: ForwardResult = pack(rows);
      if (stages) {
        const poolMs = stages.poolMs + performance.now() - (packing as number);
        result.stages = { ...stages, poolMs, receivedAt, repliedAt: performance.timeOrigin + performance.now() };
      }
      return withTransfer(result, [result.data.buffer as ArrayBuffer]);
    },
    async dispose() {
      await model.dispose();
    },
  };
});
