/**
 * What an ONNX file needs beside it: the external-data references of its tensors (TensorProto
 * `external_data` location/offset/length, in the main graph, in subgraphs and in node
 * attributes), read from the file with positioned reads. Weights stored inside the graph
 * (`raw_data`) are skipped, not read, so a 300 MB graph costs a few hundred small reads. The walk
 * also proves the file is a whole protobuf message: a field running past the end of the file (a
 * truncated download) or a file that is no ONNX model at all is an OnnxFileError.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { readFields, texts } from './protobuf-fields.js';

// onnx.proto field numbers.
const MODEL_IR_VERSION = 1;
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const GRAPH_SPARSE_INITIALIZER = 15;
const NODE_ATTRIBUTE = 5;
const ATTRIBUTE_T = 5;
const ATTRIBUTE_G = 6;
const ATTRIBUTE_TENSORS = 10;
const ATTRIBUTE_GRAPHS = 11;
const ATTRIBUTE_SPARSE_TENSOR = 22;
const ATTRIBUTE_SPARSE_TENSORS = 23;
const SPARSE_VALUES = 1;
const SPARSE_INDICES = 2;
const TENSOR_NAME = 8;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;
const EXTERNAL = 1n;
const ENTRY_KEY = 1;
const ENTRY_VALUE = 2;

/** One tensor whose bytes live in another file. */
export interface ExternalDataReference {
  tensor: string;
  /** As written in the graph: a path relative to the graph's folder. */
  location: string;
  offset: number;
  /** Undefined: to the end of the file. */
  length: number | undefined;
}

/** The file is not a whole ONNX model; the message says why. */
export class OnnxFileError extends Error {
  override name = 'OnnxFileError';
}

/** Every external-data reference of the ONNX model in `file`; rejects with OnnxFileError if it is not a whole ONNX model. */
export async function externalDataReferences(file: string): Promise<ExternalDataReference[]> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const source = new WindowedFile(handle, size);
    const found: ExternalDataReference[] = [];
    let graphs = 0;
    let irVersion = false;
    await walk(source, 0, size, async (field, wire, start, end) => {
      if (field === MODEL_IR_VERSION && wire === 0) irVersion = true;
      if (field === MODEL_GRAPH && wire === 2) {
        graphs++;
        await walkGraph(source, start, end, found);
      }
    });
    if (!irVersion || graphs !== 1) throw new OnnxFileError('it is not an ONNX model (no ir_version or graph)');
    return found;
  } finally {
    await handle.close();
  }
}

function walkGraph(source: WindowedFile, start: number, end: number, found: ExternalDataReference[]): Promise<void> {
  return walk(source, start, end, async (field, wire, from, to) => {
    if (wire !== 2) return;
    if (field === GRAPH_INITIALIZER) await walkTensor(source, from, to, found);
    else if (field === GRAPH_SPARSE_INITIALIZER) await walkSparseTensor(source, from, to, found);
    else if (field === GRAPH_NODE) {
      await walk(source, from, to, async (nodeField, nodeWire, attributeStart, attributeEnd) => {
        if (nodeField === NODE_ATTRIBUTE && nodeWire === 2) await walkAttribute(source, attributeStart, attributeEnd, found);
      });
    }
  });
}

function walkAttribute(source: WindowedFile, start: number, end: number, found: ExternalDataReference[]): Promise<void> {
  return walk(source, start, end, async (field, wire, from, to) => {
    if (wire !== 2) return;
    if (field === ATTRIBUTE_T || field === ATTRIBUTE_TENSORS) await walkTensor(source, from, to, found);
    else if (field === ATTRIBUTE_G || field === ATTRIBUTE_GRAPHS) await walkGraph(source, from, to, found);
    else if (field === ATTRIBUTE_SPARSE_TENSOR || field === ATTRIBUTE_SPARSE_TENSORS) await walkSparseTensor(source, from, to, found);
  });
}

function walkSparseTensor(source: WindowedFile, start: number, end: number, found: ExternalDataReference[]): Promise<void> {
  return walk(source, start, end, async (field, wire, from, to) => {
    if (wire === 2 && (field === SPARSE_VALUES || field === SPARSE_INDICES)) await walkTensor(source, from, to, found);
  });
}

/** A tensor's name and external entries; its raw_data (field 9) is skipped unread. */
async function walkTensor(source: WindowedFile, start: number, end: number, found: ExternalDataReference[]): Promise<void> {
  let name = '';
  let external = false;
  const entries = new Map<string, string>();
  await walk(source, start, end, async (field, wire, from, to, varint) => {
    if (field === TENSOR_DATA_LOCATION && wire === 0) external = varint === EXTERNAL;
    else if (field === TENSOR_NAME && wire === 2) name = new TextDecoder().decode(await source.bytes(from, to));
    else if (field === TENSOR_EXTERNAL_DATA && wire === 2) {
      const entry = readFields(await source.bytes(from, to));
      entries.set(texts(entry, ENTRY_KEY)[0] ?? '', texts(entry, ENTRY_VALUE)[0] ?? '');
    }
  });
  if (!external) return;
  const location = entries.get('location');
  if (!location) throw new OnnxFileError(`tensor "${name}" is external but names no file`);
  const offset = entries.has('offset') ? Number(entries.get('offset')) : 0;
  const length = entries.has('length') ? Number(entries.get('length')) : undefined;
  if (!Number.isSafeInteger(offset) || offset < 0 || (length !== undefined && (!Number.isSafeInteger(length) || length < 0))) {
    throw new OnnxFileError(`tensor "${name}" has an invalid external offset or length`);
  }
  found.push({ tensor: name, location, offset, length });
}

type Visit = (field: number, wire: number, start: number, end: number, varint: bigint | undefined) => Promise<void> | void;

/** Calls `visit` for each field of the message in [start, end); a field past `end` is an OnnxFileError. */
async function walk(source: WindowedFile, start: number, end: number, visit: Visit): Promise<void> {
  let at = start;
  while (at < end) {
    await source.ensure(at, Math.min(MAX_HEADER_BYTES, end - at));
    const key = source.varint(at, end);
    at = key.next;
    const field = Number(key.value >> 3n);
    const wire = Number(key.value & 7n);
    if (field === 0) throw new OnnxFileError(`it is not an ONNX model (field 0 at byte ${at})`);
    if (wire === 0) {
      await source.ensure(at, Math.min(MAX_HEADER_BYTES, end - at));
      const value = source.varint(at, end);
      at = value.next;
      await visit(field, wire, at, at, value.value);
      continue;
    }
    let length: number;
    if (wire === 2) {
      await source.ensure(at, Math.min(MAX_HEADER_BYTES, end - at));
      const value = source.varint(at, end);
      at = value.next;
      length = Number(value.value);
    } else if (wire === 1) length = 8;
    else if (wire === 5) length = 4;
    else throw new OnnxFileError(`it is not an ONNX model (wire type ${wire} at byte ${at})`);
    if (at + length > end) throw new OnnxFileError(`it is cut short: a field at byte ${at} runs ${at + length - end} bytes past its end`);
    await visit(field, wire, at, at + length, undefined);
    at += length;
  }
}

/** A key and a length: two varints of at most 10 bytes each. */
const MAX_HEADER_BYTES = 20;
const WINDOW_BYTES = 64 * 1024;

/** Positioned reads through one 64 KiB window, so neighbouring small fields cost one read. */
class WindowedFile {
  readonly #handle: FileHandle;
  readonly #size: number;
  #window = Buffer.alloc(0);
  #windowStart = 0;

  constructor(handle: FileHandle, size: number) {
    this.#handle = handle;
    this.#size = size;
  }

  /** Makes [at, at + length) readable synchronously (length ≤ the window). */
  async ensure(at: number, length: number): Promise<void> {
    if (at >= this.#windowStart && at + length <= this.#windowStart + this.#window.length) return;
    const size = Math.min(Math.max(WINDOW_BYTES, length), this.#size - at);
    const buffer = Buffer.allocUnsafe(size);
    const { bytesRead } = await this.#handle.read(buffer, 0, size, at);
    this.#window = buffer.subarray(0, bytesRead);
    this.#windowStart = at;
  }

  varint(at: number, end: number): { value: bigint; next: number } {
    let value = 0n;
    for (let shift = 0n, position = at; ; shift += 7n, position++) {
      if (position >= end || position - this.#windowStart >= this.#window.length || shift > 63n) {
        throw new OnnxFileError(`it is cut short or corrupt: a field header at byte ${at} does not end`);
      }
      const byte = this.#window[position - this.#windowStart]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return { value, next: position + 1 };
    }
  }

  async bytes(start: number, end: number): Promise<Uint8Array> {
    if (end - start > WINDOW_BYTES) throw new OnnxFileError(`a name or entry at byte ${start} is ${end - start} bytes long`);
    await this.ensure(start, end - start);
    return this.#window.subarray(start - this.#windowStart, end - this.#windowStart);
  }
}
