/**
 * Rows of the decoder's per-window tensors (onnxruntime tensors, first axis the batch) as searches
 * move them: the audio and cross-attention rows a batch of windows' searches drops as windows end
 * (search-batch-rows.ts), and a window's one row repeated for a decoder that does not broadcast
 * it (whisper-window-decoder.ts). The self-attention rows move in self-attention-rows.ts.
 */

/** An onnxruntime-node tensor, as the sessions take and give them. */
interface OrtTensor {
  type: string;
  data: unknown;
  dims: readonly number[];
}
type OrtTensorClass = new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;
type TypedArray = Float32Array | Uint16Array | BigInt64Array | Uint8Array;

/**
 * Row `i` of the result is row `sources[i]` of `tensor` (rows may repeat or be dropped). In
 * place when the rows do not grow (the tensor, which the
 * search owns, must not be read afterwards): a new buffer per step and cache, faulted in page by
 * page, cost more than the copy.
 */
export function gatherRows(tensor: OrtTensor, sources: readonly number[]): OrtTensor {
  const rows = tensor.dims[0]!;
  if (sources.length === rows && sources.every((source, index) => source === index)) return tensor;
  const data = tensor.data as TypedArray;
  const rowSize = data.length / rows;
  const row = (at: number) => data.subarray(at * rowSize, (at + 1) * rowSize);
  let out: TypedArray;
  if (sources.length > rows) {
    out = new (data.constructor as new (length: number) => TypedArray)(sources.length * rowSize);
    sources.forEach((source, index) => out.set(row(source) as never, index * rowSize));
  } else {
    // A source row that another row overwrites is copied aside first.
    const overwritten = (at: number) => at >= sources.length || sources[at] !== at;
    const aside = new Map<number, TypedArray>();
    sources.forEach((source, index) => {
      if (source !== index && overwritten(source) && !aside.has(source)) aside.set(source, row(source).slice());
    });
    sources.forEach((source, index) => {
      if (source !== index) data.set((aside.get(source) ?? row(source)) as never, index * rowSize);
    });
    out = data.subarray(0, sources.length * rowSize);
  }
  return new (tensor.constructor as OrtTensorClass)(tensor.type, out, [sources.length, ...tensor.dims.slice(1)]);
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
    out = new (data.constructor as new (length: number) => TypedArray)(count * rowSize);
    for (let row = 0; row < count; row++) out.set(data.subarray(0, rowSize) as never, row * rowSize);
  }
  return new (tensor.constructor as OrtTensorClass)(tensor.type, out, [count, ...tensor.dims.slice(1)]);
}
