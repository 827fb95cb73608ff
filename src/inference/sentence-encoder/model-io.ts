/**
 * Where the classification engines touch transformers.js tensors: run a model on tokenizer output
 * and read its outputs back as plain arrays, so the engines stay free of HF shapes.
 */
import { Tensor, type PreTrainedModel } from '@huggingface/transformers';

export type ModelInputs = Record<string, Tensor>;
type ModelOutputs = Record<string, Tensor>;

export async function runModel(model: PreTrainedModel, inputs: unknown): Promise<ModelOutputs> {
  // PreTrainedModel instances are callable (Callable base class); the typings only expose forward().
  return (await (model as unknown as (inputs: unknown) => Promise<ModelOutputs>)(inputs)) as ModelOutputs;
}

/** The part of a transformers.js tokenizer loneTextInputs uses: ids with the special tokens added. */
interface IdsTokenizer {
  encode(text: string): number[];
}

/**
 * The model inputs of one text without a pair, as `tokenizer(text, { padding, truncation })` makes
 * them, or undefined when the text needs truncating (longer than `maxTokens`): that path is left to
 * the tokenizer. For one text there is no padding, so the mask is all ones and the token types
 * all zeros; only the tensors cost anything, and the batch path spends most of its time building
 * them (through arrays of BigInts). `inputNames` are the keys the tokenizer returns.
 */
export function loneTextInputs(tokenizer: IdsTokenizer, text: string, inputNames: readonly string[], maxTokens: number): ModelInputs | undefined {
  const ids = tokenizer.encode(text);
  const length = ids.length;
  if (length > maxTokens) return undefined;
  const inputs: ModelInputs = {};
  for (const name of inputNames) {
    const data = new BigInt64Array(length);
    if (name === 'input_ids') for (let i = 0; i < length; i++) data[i] = BigInt(ids[i] as number);
    else if (name === 'attention_mask') data.fill(1n);
    else if (name !== 'token_type_ids') throw new Error(`no single-text value for tokenizer output "${name}"`);
    inputs[name] = new Tensor('int64', data, [1, length]);
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
export function meanPooledRows(hidden: Tensor, attentionMask: Tensor): Float32Array[] {
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
export function clsPooledRows(hidden: Tensor): Float32Array[] {
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
export function tokenCounts(attentionMask: Tensor): number[] {
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
