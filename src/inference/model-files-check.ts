/**
 * Which files an ONNX model folder needs, and whether they are complete. A graph exported with
 * external data (`model.onnx` + `model.onnx_data`, as `npm run test-models` writes them and as the
 * hub publishes models over 2 GB) names each weight's file, offset and length in its
 * `TensorProto.external_data`; onnxruntime reads them only when a session is made, and a file that
 * is missing or cut short then aborts the whole process from native code. So the installer (and
 * anything else that wants to know before a session is made) asks here first.
 *
 * The graph is read field by field from the file, skipping every tensor's raw bytes, so a
 * self-contained 1 GB graph costs a few reads of its headers, not 1 GB of memory. Nested graphs
 * (If / Loop / Scan bodies) are searched too; a location that would leave the model's folder is
 * reported, as onnxruntime refuses it.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** An external-data file a graph needs, and the fewest bytes that file must hold. */
export interface ExternalDataNeed {
  /** As the graph names it, relative to the graph's folder. */
  location: string;
  /** The end of the furthest tensor stored in it (offset + length). */
  minBytes: number;
}

/** What is wrong with one file a model needs. */
export interface FileProblem {
  /** Path inside the model folder (`onnx/encoder_model.onnx_data`). */
  file: string;
  /** `missing`, `short` (fewer bytes than the graph reads), `unsafe` (a location outside the folder), `unreadable` (not a graph). */
  kind: 'missing' | 'short' | 'unsafe' | 'unreadable';
  /** For the person at the terminal or in the log: "needed by onnx/x.onnx: 1000 bytes, has 500". */
  detail: string;
}

/** Bytes per element of TensorProto.DataType, for tensors whose external_data gives no length (4-bit types round up). */
const ELEMENT_BYTES: Record<number, number> = {
  1: 4,
  2: 1,
  3: 1,
  4: 2,
  5: 2,
  6: 4,
  7: 8,
  9: 1,
  10: 2,
  11: 8,
  12: 4,
  13: 8,
  14: 8,
  15: 16,
  16: 2,
  17: 1,
  18: 1,
  19: 1,
  20: 1,
  21: 0.5,
  22: 0.5,
  23: 0.5,
};

/** Field numbers of onnx.proto3 that lead to tensors. */
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, initializer: 5, sparseInitializer: 15 } as const;
const NODE_ATTRIBUTE = 5;
const ATTRIBUTE = { t: 5, g: 6, tensors: 10, graphs: 11, sparseTensor: 22, sparseTensors: 23 } as const;
const SPARSE = { values: 1, indices: 2 } as const;
const TENSOR = { dims: 1, dataType: 2, externalData: 13, dataLocation: 14 } as const;
/** Bounds that no exported graph comes near, so a crafted file cannot make the reader hold much. */
const MAX_DEPTH = 32;
const MAX_DIMS_BYTES = 1024;
const MAX_ENTRIES_PER_TENSOR = 16;
const MAX_LOCATIONS = 10_000;

/** The external-data files the ONNX graph at `path` reads, with the bytes each must hold; [] for a self-contained graph. */
export async function onnxExternalData(path: string): Promise<ExternalDataNeed[]> {
  const file = await open(path, 'r');
  try {
    const reader = new FieldReader(file, (await file.stat()).size);
    const needs = new Map<string, number>();
    await reader.message(0, reader.size, async (field, wire, start, end) => {
      if (field === MODEL_GRAPH && wire === 2) await graph(reader, start, end, 1, needs);
    });
    return [...needs].map(([location, minBytes]) => ({ location, minBytes }));
  } finally {
    await file.close();
  }
}

/**
 * The problems of a model folder: each of `files` (paths inside `dir`) must exist, and each ONNX
 * graph among them must find its external data, complete, beside it. [] when the folder is whole.
 */
export async function checkModelFiles(dir: string, files: readonly string[]): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  for (const file of files) {
    const info = await stat(join(dir, file)).catch(() => undefined);
    if (!info?.isFile()) {
      problems.push({ file, kind: 'missing', detail: 'not in the folder' });
      continue;
    }
    if (file.endsWith('.onnx')) problems.push(...(await checkExternalData(dir, file)));
  }
  return problems;
}

/** The external data of the graph `graphPath` (inside `dir`): each file present and long enough. */
export async function checkExternalData(dir: string, graphPath: string): Promise<FileProblem[]> {
  let needs: ExternalDataNeed[];
  try {
    needs = await onnxExternalData(join(dir, graphPath));
  } catch (error) {
    return [{ file: graphPath, kind: 'unreadable', detail: `not a readable ONNX graph (${(error as Error).message})` }];
  }
  const problems: FileProblem[] = [];
  for (const need of needs) {
    const file = externalDataPath(graphPath, need.location);
    if (file === undefined) {
      problems.push({ file: need.location, kind: 'unsafe', detail: `${graphPath} names external data outside the model folder` });
      continue;
    }
    const found = await stat(join(dir, file)).catch(() => undefined);
    const size = found?.isFile() ? found.size : undefined;
    if (size === undefined) problems.push({ file, kind: 'missing', detail: `needed by ${graphPath} (${need.minBytes} bytes)` });
    else if (size < need.minBytes) problems.push({ file, kind: 'short', detail: `needed by ${graphPath}: ${need.minBytes} bytes, has ${size}` });
  }
  return problems;
}

/** Where an external-data location lands inside the model folder, or undefined when it would leave it. */
export function externalDataPath(graphPath: string, location: string): string | undefined {
  if (location === '' || location.includes('\\') || posix.isAbsolute(location) || /\p{Cc}/u.test(location)) return undefined;
  if (location.endsWith('/') || ['.', '..'].includes(posix.basename(location))) return undefined;
  const joined = posix.normalize(posix.join(posix.dirname(graphPath), location));
  return joined.startsWith('../') || joined === '..' || joined === '.' ? undefined : joined;
}

/** "onnx/a.onnx_data (missing, needed by onnx/a.onnx (100 bytes)); …" for one message line. */
export function describeProblems(problems: readonly FileProblem[]): string {
  return problems.map((problem) => `${problem.file} (${problem.kind}, ${problem.detail})`).join('; ');
}

async function graph(reader: FieldReader, start: number, end: number, depth: number, needs: Map<string, number>): Promise<void> {
  if (depth > MAX_DEPTH) throw new Error('graphs nested too deep');
  await reader.message(start, end, async (field, wire, from, to) => {
    if (wire !== 2) return;
    if (field === GRAPH.initializer) await tensor(reader, from, to, needs);
    else if (field === GRAPH.sparseInitializer) await sparseTensor(reader, from, to, needs);
    else if (field === GRAPH.node) {
      await reader.message(from, to, async (nodeField, nodeWire, a, b) => {
        if (nodeField === NODE_ATTRIBUTE && nodeWire === 2) await attribute(reader, a, b, depth, needs);
      });
    }
  });
}

async function attribute(reader: FieldReader, start: number, end: number, depth: number, needs: Map<string, number>): Promise<void> {
  await reader.message(start, end, async (field, wire, from, to) => {
    if (wire !== 2) return;
    if (field === ATTRIBUTE.t || field === ATTRIBUTE.tensors) await tensor(reader, from, to, needs);
    else if (field === ATTRIBUTE.g || field === ATTRIBUTE.graphs) await graph(reader, from, to, depth + 1, needs);
    else if (field === ATTRIBUTE.sparseTensor || field === ATTRIBUTE.sparseTensors) await sparseTensor(reader, from, to, needs);
  });
}

async function sparseTensor(reader: FieldReader, start: number, end: number, needs: Map<string, number>): Promise<void> {
  await reader.message(start, end, async (field, wire, from, to) => {
    if (wire === 2 && (field === SPARSE.values || field === SPARSE.indices)) await tensor(reader, from, to, needs);
  });
}

/** Records the external file and extent of one TensorProto stored outside the graph; raw_data is skipped unread. */
async function tensor(reader: FieldReader, start: number, end: number, needs: Map<string, number>): Promise<void> {
  const dims: bigint[] = [];
  const entries = new Map<string, string>();
  let dataType = 0;
  let external = false;
  await reader.message(start, end, async (field, wire, from, to, varint) => {
    if (field === TENSOR.dims && wire === 0) dims.push(varint as bigint);
    else if (field === TENSOR.dims && wire === 2) {
      if (to - from > MAX_DIMS_BYTES) throw new Error('a tensor with implausibly many dimensions');
      dims.push(...(await reader.packedVarints(from, to)));
    } else if (field === TENSOR.dataType && wire === 0) dataType = Number(varint);
    else if (field === TENSOR.dataLocation && wire === 0) external = varint === 1n;
    else if (field === TENSOR.externalData && wire === 2) {
      const entry = await reader.stringPair(from, to);
      if (entry) entries.set(entry[0], entry[1]);
      if (entries.size > MAX_ENTRIES_PER_TENSOR) throw new Error('a tensor with implausibly many external_data entries');
    }
  });
  if (!external) return;
  const location = entries.get('location');
  if (location === undefined) throw new Error('a tensor stored externally names no location');
  const offset = Number(entries.get('offset') ?? 0);
  const elements = dims.reduce((product, dim) => product * Number(dim), 1);
  const length = entries.has('length') ? Number(entries.get('length')) : Math.ceil(elements * (ELEMENT_BYTES[dataType] ?? 0));
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) throw new Error(`bad external data extent in ${location}`);
  needs.set(location, Math.max(needs.get(location) ?? 0, offset + length));
  if (needs.size > MAX_LOCATIONS) throw new Error('implausibly many external data files');
}

type FieldVisitor = (field: number, wire: number, start: number, end: number, varint?: bigint) => Promise<void>;

/** Protocol Buffers fields read from a file through a small window: length-delimited values are visited by their byte range, not read. */
class FieldReader {
  static readonly WINDOW = 64 * 1024;
  #window = Buffer.alloc(0);
  #windowStart = 0;

  constructor(
    readonly file: FileHandle,
    readonly size: number,
  ) {}

  /** Calls `visit` for each field of the message in [start, end). */
  async message(start: number, end: number, visit: FieldVisitor): Promise<void> {
    let at = start;
    while (at < end) {
      const [key, afterKey] = await this.varint(at, end);
      const field = Number(key >> 3n);
      const wire = Number(key & 7n);
      if (wire === 0) {
        const [value, next] = await this.varint(afterKey, end);
        await visit(field, wire, afterKey, next, value);
        at = next;
      } else if (wire === 2) {
        const [length, from] = await this.varint(afterKey, end);
        const to = from + Number(length);
        if (length > BigInt(end - from)) throw new Error('truncated field');
        await visit(field, wire, from, to);
        at = to;
      } else if (wire === 1 || wire === 5) {
        at = afterKey + (wire === 1 ? 8 : 4);
        if (at > end) throw new Error('truncated field');
      } else {
        throw new Error(`unsupported wire type ${wire}`);
      }
    }
  }

  async packedVarints(start: number, end: number): Promise<bigint[]> {
    const values: bigint[] = [];
    for (let at = start; at < end; ) {
      const [value, next] = await this.varint(at, end);
      values.push(value);
      at = next;
    }
    return values;
  }

  /** A StringStringEntryProto (key = 1, value = 2), each at most 4 KiB. */
  async stringPair(start: number, end: number): Promise<[string, string] | undefined> {
    let key: string | undefined;
    let value = '';
    await this.message(start, end, async (field, wire, from, to) => {
      if (wire !== 2 || to - from > 4096) return;
      const text = (await this.bytes(from, to - from)).toString('utf8');
      if (field === 1) key = text;
      else if (field === 2) value = text;
    });
    return key === undefined ? undefined : [key, value];
  }

  async varint(at: number, end: number): Promise<[bigint, number]> {
    const bytes = await this.bytes(at, Math.min(10, end - at));
    let value = 0n;
    for (let i = 0; i < bytes.length; i += 1) {
      const byte = bytes[i] as number;
      value |= BigInt(byte & 0x7f) << BigInt(7 * i);
      if (!(byte & 0x80)) return [value, at + i + 1];
    }
    throw new Error('truncated varint');
  }

  async bytes(at: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    const offset = at - this.#windowStart;
    if (offset < 0 || offset + length > this.#window.length) {
      const size = Math.min(Math.max(length, FieldReader.WINDOW), this.size - at);
      if (size < length) throw new Error('truncated file');
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await this.file.read(buffer, 0, size, at);
      if (bytesRead < length) throw new Error('truncated file');
      this.#window = buffer.subarray(0, bytesRead);
      this.#windowStart = at;
      return this.#window.subarray(0, length);
    }
    return this.#window.subarray(offset, offset + length);
  }
}
