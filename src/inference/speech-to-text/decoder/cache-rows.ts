/**
 * Rows of the decoder's per-window tensors (onnxruntime tensors, first axis the batch) as searches
 * move them: the audio and cross-attention rows a batch of windows' searches drops as windows end
 * (search-batch-rows.ts), and a window's one row repeated for a decoder that does not broadcast
 * it (window-search.ts); a greedy batch's rows as they end (lockstep-decode.ts). The self-attention rows move in self-attention-rows.ts.
 */
import { arrayLike, tensorLike, type OrtTensor, type TypedArray } from '../../ort-tensor.js';

/**
 * Row `i` of the result is row `sources[i]` of `tensor` (rows may repeat or be dropped). In
 * place when the rows do not grow (the tensor, which the caller owns, must not be read
 * afterwards): a new buffer per step and cache, faulted in page by page, cost more than the copy,
 * and a copy of a batch's cross-attention cache would hold it twice (large-v3: ~0.5 GB a window).
 * Only a row read after its place was written is set aside first, so keeping rows in order
 * (finished rows leaving a batch) copies nothing aside.
 */
export function gatherRows(tensor: OrtTensor, sources: readonly number[]): OrtTensor {
  const rows = tensor.dims[0]!;
  if (sources.length === rows && sources.every((source, index) => source === index)) return tensor;
  const data = tensor.data as TypedArray;
  const rowSize = data.length / rows;
  const row = (at: number) => data.subarray(at * rowSize, (at + 1) * rowSize);
  let out: TypedArray;
  if (sources.length > rows) {
    out = arrayLike(data, sources.length * rowSize);
    sources.forEach((source, index) => out.set(row(source) as never, index * rowSize));
  } else {
    // Rows are written in order: a source row read after its own place was written (source <
    // index) is copied aside first; one read before (source > index) is still whole.
    const overwritten = (at: number) => at < sources.length && sources[at] !== at;
    const aside = new Map<number, TypedArray>();
    sources.forEach((source, index) => {
      if (source < index && overwritten(source) && !aside.has(source)) aside.set(source, row(source).slice());
    });
    sources.forEach((source, index) => {
      if (source === index) return;
      const kept = aside.get(source);
      if (kept) data.set(kept as never, index * rowSize);
      else data.copyWithin(index * rowSize, source * rowSize, (source + 1) * rowSize);
    });
    out = data.subarray(0, sources.length * rowSize);
  }
  return tensorLike(tensor, out, [sources.length, ...tensor.dims.slice(1)]);
}

/**
 * `count` rows of a tensor whose rows are all alike (a window's audio, its cross-attention
 * cache): a view of the first ones, or the first row repeated when it has fewer.
 */
export function alikeRows(tensor: OrtTensor, count: number): OrtTensor {
  const rows = tensor.dims[0]!;
  if (count === rows) return tensor;
  const data = tensor.data as TypedArray;
  const rowSize = data.length / rows;
  let out: TypedArray;
  if (count < rows) out = data.subarray(0, count * rowSize);
  else {
    out = arrayLike(data, count * rowSize);
    for (let row = 0; row < count; row++) out.set(data.subarray(0, rowSize) as never, row * rowSize);
  }
  return tensorLike(tensor, out, [count, ...tensor.dims.slice(1)]);
}

/** Tensors [1, …] (or [n, …]) stacked along their first axis into one. */
export function stackRows(tensors: readonly OrtTensor[]): OrtTensor {
  if (tensors.length === 1) return tensors[0]!;
  const first = tensors[0]!;
  const parts = tensors.map((tensor) => tensor.data as TypedArray);
  const data = arrayLike(
    parts[0]!,
    parts.reduce((sum, part) => sum + part.length, 0),
  );
  let at = 0;
  for (const part of parts) {
    data.set(part as never, at);
    at += part.length;
  }
  const rows = tensors.reduce((sum, tensor) => sum + tensor.dims[0]!, 0);
  return tensorLike(first, data, [rows, ...first.dims.slice(1)]);
}
