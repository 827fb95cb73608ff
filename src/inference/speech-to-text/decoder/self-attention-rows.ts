/**
 * A decode's self-attention key/value cache (`past_key_values.N.decoder.*`, [rows, heads, length,
 * size]) kept in buffers of our own between decoder runs, for a decoder that outputs only the
 * positions each run read (self-attention-steps.ts): the next run's past is the last one's rows
 * with their new positions appended, each row taken from the row it continues (a beam search's
 * sources, a batch's rows that go on), written in one pass into the other of two buffers that
 * are reused run after run. A decoder without step outputs gives its whole present cache
 * instead, which then simply replaces the rows (the original graph, the unpacked session). A
 * search's beams all begin with the window's prompt and start tokens: share() makes those one row
 * the decoder reads for all, so that each step copies only what each beam wrote itself.
 *
 * Why: onnxruntime-node copies every output into a new buffer, so fetching the present caches
 * cost a search step the whole cache in fresh memory, plus the garbage collector's work for it
 * (docs/benchmarks.md, "Speech to text"); a copy into warm buffers costs a fraction of that.
 */
import { arrayLike, tensorLike, type OrtTensor } from '../../ort-tensor.js';
import { isSelfAttentionCache, PAST_PREFIX, PRESENT_PREFIX, pastInputName, STEP_PREFIX, sharedInputName } from '../graph/rewrite-contract.js';

/** The caches' data: fp32 or fp16. */
type TypedArray = Float32Array | Uint16Array;

/** Past inputs by name. */
type Cache = Record<string, OrtTensor>;

/** Positions of room a buffer is made with beyond what it holds, so that it is not made again every run. */
const HEADROOM_POSITIONS = 64;

export class SelfAttentionRows {
  /** The rows as the last run read them (or as a run without step outputs returned them). */
  #rows: Cache = {};
  /** The positions the last run read on #rows, not yet appended. */
  #steps: Cache | undefined;
  /** Positions every row holds alike (`shared.N.decoder.*`, one row), read before each row's own; none until share(). */
  readonly #shared: Cache = {};
  /** Two buffers per name: the next rows are written into the one the current rows are not in. */
  readonly #buffers = new Map<string, [TypedArray | undefined, TypedArray | undefined]>();

  /** How many rows the cache holds now. */
  get rows(): number {
    const first = Object.values(this.#rows)[0];
    return first?.dims[0] ?? 0;
  }

  /**
   * The past inputs of a run on rows `sources` (row i continues current row `sources[i]`; rows
   * may repeat or be dropped; all rows in order when absent). The tensors are only valid until
   * the next call: their buffers are reused.
   */
  past(sources?: readonly number[]): Cache {
    const steps = this.#steps;
    const rows = this.rows;
    const order = sources ?? Array.from({ length: rows }, (_, row) => row);
    if (steps || order.length !== rows || order.some((source, row) => source !== row)) {
      const next: Cache = {};
      for (const [name, tensor] of Object.entries(this.#rows)) next[name] = this.#append(name, tensor, steps?.[name], order);
      this.#rows = next;
      this.#steps = undefined;
    }
    return { ...this.#rows, ...this.#shared };
  }

  /**
   * Makes the one row held now (a window's prompt and start tokens, where a search's beams all
   * begin) the positions every row shares, for a decoder that reads them from one row
   * (`shared.N.decoder.*`, self-attention-steps.ts): from then on each row holds, and each
   * past() copies, only its own positions, and a run reads the shared ones once for all rows.
   */
  share(): void {
    const rows = this.past();
    if (this.rows !== 1) throw new RangeError(`only one row can be shared, not ${this.rows}`);
    for (const [name, tensor] of Object.entries(rows)) {
      if (!name.startsWith(PAST_PREFIX)) continue;
      // A copy: after a prompt read in several runs the rows are in one of the pair's buffers,
      // which the next past() would write the beams' own positions over.
      this.#shared[sharedInputName(name)] = tensorLike(tensor, (tensor.data as TypedArray).slice(), tensor.dims);
      const [, heads, , size] = tensor.dims as [number, number, number, number];
      this.#rows[name] = tensorLike(tensor, arrayLike(tensor.data as TypedArray, 0), [1, heads, 0, size]);
    }
  }

  /**
   * What a run on the last past() gave: its `step.N.decoder.*` outputs (the positions it read,
   * appended at the next past()), or its `present.N.decoder.*` (all of each row, which replace the
   * rows; the first run's, or a decoder without step outputs).
   */
  update(outputs: Readonly<Record<string, OrtTensor>>): void {
    const steps: Cache = {};
    const presents: Cache = {};
    for (const [name, tensor] of Object.entries(outputs)) {
      if (isSelfAttentionCache(name, STEP_PREFIX)) steps[pastInputName(name)] = tensor;
      else if (isSelfAttentionCache(name, PRESENT_PREFIX)) presents[pastInputName(name)] = tensor;
    }
    if (Object.keys(steps).length > 0 && Object.keys(this.#rows).length > 0) this.#steps = steps;
    else {
      this.#rows = Object.keys(presents).length > 0 ? presents : steps;
      this.#steps = undefined;
    }
  }

  /** Rows `order` of `tensor`, each with its row of `step` after it, in a buffer of `name`'s pair. */
  #append(name: string, tensor: OrtTensor, step: OrtTensor | undefined, order: readonly number[]): OrtTensor {
    const [rows, heads, length, size] = tensor.dims as [number, number, number, number];
    const added = step?.dims[2] ?? 0;
    const data = tensor.data as TypedArray;
    const stepData = step?.data as TypedArray | undefined;
    const grown = length + added;
    const out = this.#buffer(name, data, order.length * heads * grown * size, order.length * heads * (grown + HEADROOM_POSITIONS) * size);
    const past = length * size;
    const fresh = added * size;
    for (let row = 0; row < order.length; row++) {
      const source = order[row]!;
      if (source < 0 || source >= rows) throw new RangeError(`cache row ${source} of ${rows}`);
      for (let head = 0; head < heads; head++) {
        const to = (row * heads + head) * grown * size;
        const from = (source * heads + head) * past;
        out.set(data.subarray(from, from + past) as never, to);
        if (stepData) {
          const at = (source * heads + head) * fresh;
          out.set(stepData.subarray(at, at + fresh) as never, to + past);
        }
      }
    }
    return tensorLike(tensor, out, [order.length, heads, grown, size]);
  }

  /** `length` elements of the pair's buffer that does not hold `current`, made (with room for `room`) when too small. */
  #buffer(name: string, current: TypedArray, length: number, room: number): TypedArray {
    const pair = this.#buffers.get(name) ?? [undefined, undefined];
    this.#buffers.set(name, pair);
    const side = pair[0] && pair[0].buffer === current.buffer ? 1 : 0;
    let buffer = pair[side];
    if (!buffer || buffer.length < length) {
      buffer = arrayLike(current, room);
      pair[side] = buffer;
    }
    return buffer.subarray(0, length);
  }
}
