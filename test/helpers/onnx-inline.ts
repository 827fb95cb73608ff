/**
 * The test models keep their weights beside each graph (`<file>.onnx_data`, see
 * scripts/tools/external_weights.py); hub repos publish models under 2 GB as one self-contained
 * `.onnx`. To serve a test model laid out as its hub repo, this folds the external data back into
 * the graph, editing the ONNX protobuf at the wire level: every TensorProto whose data_location is
 * EXTERNAL gets its bytes as raw_data, in the main graph and in subgraphs (a merged decoder's If
 * branches). Same tensors, same model; only where the bytes live changes.
 */

// Field numbers of onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const NODE_ATTRIBUTE = 5;
const ATTRIBUTE_T = 5;
const ATTRIBUTE_G = 6;
const ATTRIBUTE_TENSORS = 10;
const ATTRIBUTE_GRAPHS = 11;
const TENSOR_RAW_DATA = 9;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;
const EXTERNAL = 1;

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

interface Field {
  number: number;
  wireType: number;
  /** The payload of a BYTES field, or the number of a VARINT one. */
  bytes?: Buffer;
  varint?: number;
  /** The whole field as it was read (key included), to copy unchanged. */
  raw: Buffer;
}

/** `model` (an .onnx file) with every external tensor's bytes read through `readData(location)` put inside it. */
export function inlineExternalData(model: Buffer, readData: (location: string) => Buffer): Buffer {
  return rewrite(model, { [MODEL_GRAPH]: (graph) => rewriteGraph(graph, readData) });
}

function rewriteGraph(graph: Buffer, readData: (location: string) => Buffer): Buffer {
  const tensor = (bytes: Buffer) => rewriteTensor(bytes, readData);
  const subgraph = (bytes: Buffer) => rewriteGraph(bytes, readData);
  const attribute = (bytes: Buffer) =>
    rewrite(bytes, { [ATTRIBUTE_T]: tensor, [ATTRIBUTE_G]: subgraph, [ATTRIBUTE_TENSORS]: tensor, [ATTRIBUTE_GRAPHS]: subgraph });
  const node = (bytes: Buffer) => rewrite(bytes, { [NODE_ATTRIBUTE]: attribute });
  return rewrite(graph, { [GRAPH_NODE]: node, [GRAPH_INITIALIZER]: tensor });
}

function rewriteTensor(tensor: Buffer, readData: (location: string) => Buffer): Buffer {
  const fields = [...readFields(tensor)];
  if (!fields.some((field) => field.number === TENSOR_DATA_LOCATION && field.varint === EXTERNAL)) return tensor;
  const entries = new Map<string, string>();
  for (const field of fields.filter((item) => item.number === TENSOR_EXTERNAL_DATA)) {
    const entry = new Map([...readFields(field.bytes as Buffer)].map((item) => [item.number, (item.bytes as Buffer).toString('utf8')]));
    entries.set(entry.get(1) ?? '', entry.get(2) ?? '');
  }
  const location = entries.get('location');
  if (!location) throw new Error('external tensor without a location');
  const data = readData(location);
  const offset = Number(entries.get('offset') ?? 0);
  const length = entries.has('length') ? Number(entries.get('length')) : data.length - offset;
  const kept = fields.filter((field) => field.number !== TENSOR_EXTERNAL_DATA && field.number !== TENSOR_DATA_LOCATION).map((field) => field.raw);
  return Buffer.concat([...kept, bytesField(TENSOR_RAW_DATA, data.subarray(offset, offset + length))]);
}

/** The message with the BYTES fields named in `edits` replaced by what their function returns. */
function rewrite(message: Buffer, edits: Record<number, (bytes: Buffer) => Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const field of readFields(message)) {
    const edit = edits[field.number];
    parts.push(edit && field.wireType === BYTES ? bytesField(field.number, edit(field.bytes as Buffer)) : field.raw);
  }
  return Buffer.concat(parts);
}

function* readFields(buffer: Buffer): Generator<Field> {
  let at = 0;
  while (at < buffer.length) {
    const start = at;
    const [key, afterKey] = readVarint(buffer, at);
    at = afterKey;
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    let bytes: Buffer | undefined;
    let varint: number | undefined;
    if (wireType === VARINT) [varint, at] = readVarint(buffer, at);
    else if (wireType === FIXED64) at += 8;
    else if (wireType === FIXED32) at += 4;
    else if (wireType === BYTES) {
      const [length, afterLength] = readVarint(buffer, at);
      bytes = buffer.subarray(afterLength, afterLength + length);
      at = afterLength + length;
    } else throw new Error(`unsupported protobuf wire type ${wireType}`);
    yield { number, wireType, raw: buffer.subarray(start, at), ...(bytes ? { bytes } : {}), ...(varint === undefined ? {} : { varint }) };
  }
}

function readVarint(buffer: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = buffer[at++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 128;
  }
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function bytesField(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + BYTES), varint(payload.length), payload]);
}
