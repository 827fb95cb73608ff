/**
 * The one shape of an onnxruntime-node tensor our code handles directly (sessions take and give
 * them): declared here once rather than importing onnxruntime-node where only the shape matters
 * (the encoder's session may live in another thread, onnx-session-thread.ts).
 */
export interface OrtTensor {
  type: string;
  data: unknown;
  dims: readonly number[];
}

/** The typed arrays tensor data comes in here. */
export type TypedArray = Float32Array | Uint16Array | BigInt64Array | Uint8Array;

type OrtTensorClass = new (type: string, data: unknown, dims: readonly number[]) => OrtTensor;

/** A tensor of `like`'s class and type over `data` with `dims`: no onnxruntime import needed. */
export function tensorLike(like: OrtTensor, data: unknown, dims: readonly number[], type = like.type): OrtTensor {
  return new (like.constructor as OrtTensorClass)(type, data, dims);
}

/** An empty typed array of `data`'s kind, `length` long. */
export function arrayLike<T extends TypedArray>(data: T, length: number): T {
  return new (data.constructor as new (length: number) => T)(length);
}
