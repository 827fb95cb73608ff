/**
 * Where the classification engines touch transformers.js tensors: run a model on tokenizer output
 * and read its outputs back as plain arrays, so the engines stay free of HF shapes.
 */
import { Tensor } from '@huggingface/transformers';

export type ModelInputs = Record<string, Tensor>;
type ModelOutputs = Record<string, TensorLike>;

/** What the readers below take of a tensor: transformers.js's and onnxruntime's alike. */
export interface TensorLike {
  readonly dims: readonly number[];
  readonly data: unknown;
}

/** The part of an onnxruntime-node session runSession uses. */
interface OrtSession {
  readonly inputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, TensorLike>>;
}

/**
 * Runs the ONNX session itself on tokenizer-shaped inputs, as the model's forward() would (its
 * inputs picked by name, zero token types when the model wants them and the tokenizer gave none)
 * without its layers around the call: input checks, a Tensor wrapper per output.
 */
export async function runSession(session: OrtSession, inputs: ModelInputs): Promise<Record<string, TensorLike>> {
  const feeds: Record<string, unknown> = {};
  for (const name of session.inputNames) {
    const tensor = inputs[name] ?? (name === 'token_type_ids' ? zerosLike(inputs.input_ids) : undefined);
    if (!tensor) throw new Error(`no model input "${name}"`);
    feeds[name] = tensor.ort_tensor;
  }
  return session.run(feeds);
}

function zerosLike(tensor: Tensor | undefined): Tensor | undefined {
  return tensor && new Tensor('int64', new BigInt64Array((tensor.data as BigInt64Array).length), [...tensor.dims]);
}

/** The part of a transformers.js tokenizer encodeTexts uses: ids with the special tokens added. */
interface IdsTokenizer {
  encode(text: string): number[];
}

/**
 * Each text's token ids, special tokens added, as `tokenizer(texts, { truncation: true })` gives
 * them before padding; undefined when a text needs truncating (longer than `maxTokens`): that
 * batch is left to the tokenizer call.
 */
export function encodeTexts(tokenizer: IdsTokenizer, texts: readonly string[], maxTokens: number): number[][] | undefined {
  const ids: number[][] = [];
  for (const text of texts) {
    const row = tokenizer.encode(text);
    if (row.length > maxTokens) return undefined;
    ids.push(row);
  }
  return ids;
}

/** How the tokenizer pads a batch. */
export interface Padding {
  /** The tokenizer's outputs (input_ids, attention_mask, maybe token_type_ids). */
  inputNames: readonly string[];
  padId: number;
  side: 'left' | 'right';
}

/**
 * The model inputs of the given rows of `ids`, padded to the longest of them, as the tokenizer's
 * batch call makes them (mask 0 and type 0 on padding). Built straight into typed arrays: the
 * tokenizer call goes through arrays of BigInts and spent most of its time there, and it pads
 * the whole micro-batch to its longest text before the length buckets cut it down again.
 */
export function paddedInputs(ids: readonly (readonly number[])[], rows: readonly number[], padding: Padding): ModelInputs {
  const width = Math.max(...rows.map((row) => (ids[row] as number[]).length));
  const inputs: ModelInputs = {};
  for (const name of padding.inputNames) {
    const data = new BigInt64Array(rows.length * width);
    rows.forEach((row, position) => {
      const tokens = ids[row] as number[];
      const start = position * width + (padding.side === 'left' ? width - tokens.length : 0);
      if (name === 'input_ids') {
        if (tokens.length < width) data.fill(BigInt(padding.padId), position * width, (position + 1) * width);
        for (let i = 0; i < tokens.length; i++) data[start + i] = BigInt(tokens[i] as number);
      } else if (name === 'attention_mask') data.fill(1n, start, start + tokens.length);
      else if (name !== 'token_type_ids') throw new Error(`no single-sequence value for tokenizer output "${name}"`);
    });
    inputs[name] = new Tensor('int64', data, [rows.length, width]);
  }
  return inputs;
}

/** A [batch, n] output as one Float32Array per row. */
export function logitRows(outputs: ModelOutputs, name: string): Float32Array[] {
  const tensor = outputs[name];
  if (tensor?.dims.length !== 2) throw new Error(`model output "${name}" is not a [batch, n] tensor`);
  const [batch, width] = tensor.dims as [number, number];
  const data = tensor.data as Float32Array;
  return Array.from({ length: batch }, (_, row) => data.subarray(row * width, (row + 1) * width));
}

/**
 * Mean of the token vectors under the attention mask, L2-normalised: the sentence-transformers
 * pooling of all-MiniLM-L6-v2, so cosine similarity is a dot product.
 */
export function meanPooledRows(hidden: TensorLike, attentionMask: TensorLike): Float32Array[] {
  const [batch, length, size] = hidden.dims as [number, number, number];
  const data = hidden.data as Float32Array;
  const mask = attentionMask.data as BigInt64Array | Int32Array | Float32Array;
  const rows: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float32Array(size);
    let count = 0;
    for (let t = 0; t < length; t++) {
      if (Number(mask[b * length + t]) === 0) continue;
      count++;
      const offset = (b * length + t) * size;
      for (let i = 0; i < size; i++) sum[i]! += data[offset + i]!;
    }
    let norm = 0;
    for (let i = 0; i < size; i++) {
      sum[i]! /= Math.max(count, 1);
      norm += sum[i]! * sum[i]!;
    }
    const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
    for (let i = 0; i < size; i++) sum[i]! *= scale;
    rows.push(sum);
  }
  return rows;
}

/** The first token's vector of each row, L2-normalised: sentence-transformers' CLS pooling (bge). */
export function clsPooledRows(hidden: TensorLike): Float32Array[] {
  const [batch, length, size] = hidden.dims as [number, number, number];
  const data = hidden.data as Float32Array;
  return Array.from({ length: batch }, (_, b) => normalized(data.slice(b * length * size, b * length * size + size)));
}

function normalized(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}

/** Real (unpadded) tokens per row of a [batch, length] attention mask. */
export function tokenCounts(attentionMask: TensorLike): number[] {
  const [batch, length] = attentionMask.dims as [number, number];
  const mask = attentionMask.data as BigInt64Array | Int32Array | Float32Array;
  return Array.from({ length: batch }, (_, row) => {
    let count = 0;
    for (let t = 0; t < length; t++) if (Number(mask[row * length + t]) !== 0) count++;
    return count;
  });
}

/**
 * The given rows of every [batch, length] input, cut to `width` tokens on the side that holds the
 * real ones (padding is on `paddingSide`): a sub-batch that needs no second tokenisation.
 */
export function selectRows(inputs: ModelInputs, rows: readonly number[], width: number, paddingSide: 'left' | 'right'): ModelInputs {
  const selected: ModelInputs = {};
  for (const [name, tensor] of Object.entries(inputs)) {
    const [, length] = tensor.dims as [number, number];
    const source = tensor.data as BigInt64Array;
    const data = new (source.constructor as BigInt64ArrayConstructor)(rows.length * width);
    const offset = paddingSide === 'left' ? length - width : 0;
    rows.forEach((row, position) => data.set(source.subarray(row * length + offset, row * length + offset + width), position * width));
    selected[name] = new Tensor(tensor.type as 'int64', data, [rows.length, width]);
  }
  return selected;
}
