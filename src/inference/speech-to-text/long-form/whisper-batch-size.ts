/**
 * How many independent windows to decode in one lockstep batch (WhisperWindowDecoder.decodeBatch).
 * A batch pays in the decoder: one step reads the weights once for every row, and rows give
 * onnxruntime's threads matrices big enough to share; on tiny.en, 2 threads, a step of 8 rows
 * cost far less than 8 steps of one (docs/benchmarks.md, "Speech to text"). What it costs is
 * memory: every row holds its window's cross-attention keys and values (tiny: 18 MB, large-v3:
 * 490 MB in fp32) and its own self-attention cache for the whole batch's life.
 */

/** The config.json fields a row's memory follows from. */
export interface WhisperDimensions {
  decoder_layers: number;
  d_model: number;
  vocab_size: number;
  /** Encoder frames of a window (1500). */
  max_source_positions?: number;
  /** Decoder positions (448). */
  max_target_positions?: number;
}

/** Rows per onnxruntime thread: tiny.en on 2 threads still gained at 16 rows (the most measured). */
const ROWS_PER_THREAD = 8;

/**
 * Bytes one row of a batch holds at most (float32): the cross-attention cache, a self-attention
 * cache grown to the decoder's full context, the window's encoder output stacked into the batch,
 * and one step's logits.
 */
export function batchRowBytes(dims: WhisperDimensions): number {
  const frames = dims.max_source_positions ?? 1500;
  const positions = dims.max_target_positions ?? 448;
  const crossCache = dims.decoder_layers * 2 * frames * dims.d_model;
  const selfCache = dims.decoder_layers * 2 * positions * dims.d_model;
  return 4 * (crossCache + selfCache + frames * dims.d_model + dims.vocab_size);
}

export interface BatchSizeInput {
  /** Windows waiting to be decoded. */
  windows: number;
  /** onnxruntime intra-op threads of the model. */
  threads: number;
  dims: WhisperDimensions;
  /** Bytes a batch may add to the process; undefined: no bound but the threads. */
  memoryBudgetBytes?: number;
}

/** At least 1 (a window too big for the budget is still decoded, alone, as without batches). */
export function whisperBatchSize({ windows, threads, dims, memoryBudgetBytes }: BatchSizeInput): number {
  const byThreads = ROWS_PER_THREAD * Math.max(1, threads);
  const byMemory = memoryBudgetBytes === undefined ? Number.POSITIVE_INFINITY : Math.floor(memoryBudgetBytes / batchRowBytes(dims));
  return Math.max(1, Math.min(windows, byThreads, byMemory));
}

/**
 * Rows per onnxruntime thread of several windows' searches in one run: tiny.en on 1 thread still
 * gained at 25 rows (5 windows × 5 beams, the most measured), where a greedy row costs more (its
 * own cross-attention) and gains less.
 */
const SEARCH_ROWS_PER_THREAD = 25;

/**
 * Bytes one window of several windows' searches holds at most (float32) with `rows` beams or
 * samples: its cross-attention cache and encoder output once (its rows share them on the grouped
 * decoder), and per row a self-attention cache grown to the full context and one step's logits.
 */
export function searchWindowBytes(dims: WhisperDimensions, rows: number): number {
  const frames = dims.max_source_positions ?? 1500;
  const positions = dims.max_target_positions ?? 448;
  const shared = dims.decoder_layers * 2 * frames * dims.d_model + frames * dims.d_model;
  return 4 * (shared + rows * (dims.decoder_layers * 2 * positions * dims.d_model + dims.vocab_size));
}

/** Whether `windows` searches of `rows` rows each may step in one run (WhisperWindowDecoder's fitsSearchBatch). */
export type SearchBatchFits = (windows: number, rows: number) => boolean;

/** The bound on several windows' searches in one run: rows by the threads, bytes by the budget (undefined: no bound but the threads). */
export function searchBatchFits({ threads, dims, memoryBudgetBytes }: Omit<BatchSizeInput, 'windows'>): SearchBatchFits {
  const maxRows = SEARCH_ROWS_PER_THREAD * Math.max(1, threads);
  return (windows, rows) => windows * rows <= maxRows && (memoryBudgetBytes === undefined || windows * searchWindowBytes(dims, rows) <= memoryBudgetBytes);
}
