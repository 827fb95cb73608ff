/**
 * The test models keep their weights beside each graph (`<file>.onnx_data`, see
 * scripts/tools/external_weights.py); hub repos publish models under 2 GB as one self-contained
 * `.onnx`. To serve a test model laid out as its hub repo, this folds the external data back into
 * the graph, editing the ONNX protobuf at the wire level: every TensorProto whose data_location is
 * EXTERNAL gets its bytes as raw_data, in the main graph and in subgraphs (a merged decoder's If
 * branches). Same tensors, same model; only where the bytes live changes.
 */

import { readFields, texts, writeFields } from '../../src/inference/speech-to-text/graph/protobuf-fields.js';

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
const EXTERNAL = 1n;
// StringStringEntryProto.
const ENTRY_KEY = 1;
const ENTRY_VALUE = 2;

/** `model` (an .onnx file) with every external tensor's bytes read through `readData(location)` put inside it. */
export function inlineExternalData(model: Buffer, readData: (location: string) => Buffer): Buffer {
  const out = rewrite(model, { [MODEL_GRAPH]: (graph) => rewriteGraph(graph, readData) });
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

function rewriteGraph(graph: Uint8Array, readData: (location: string) => Buffer): Uint8Array {
  const tensor = (bytes: Uint8Array) => rewriteTensor(bytes, readData);
  const subgraph = (bytes: Uint8Array) => rewriteGraph(bytes, readData);
  const attribute = (bytes: Uint8Array) =>
    rewrite(bytes, { [ATTRIBUTE_T]: tensor, [ATTRIBUTE_G]: subgraph, [ATTRIBUTE_TENSORS]: tensor, [ATTRIBUTE_GRAPHS]: subgraph });
  const node = (bytes: Uint8Array) => rewrite(bytes, { [NODE_ATTRIBUTE]: attribute });
  return rewrite(graph, { [GRAPH_NODE]: node, [GRAPH_INITIALIZER]: tensor });
}

function rewriteTensor(tensor: Uint8Array, readData: (location: string) => Buffer): Uint8Array {
  const fields = readFields(tensor);
  if (!fields.some((field) => field.field === TENSOR_DATA_LOCATION && field.wire === 0 && field.value === EXTERNAL)) return tensor;
  const entries = new Map<string, string>();
  for (const field of fields) {
    if (field.field !== TENSOR_EXTERNAL_DATA || field.wire !== 2) continue;
    const entry = readFields(field.value);
    entries.set(texts(entry, ENTRY_KEY)[0] ?? '', texts(entry, ENTRY_VALUE)[0] ?? '');
  }
  const location = entries.get('location');
  if (!location) throw new Error('external tensor without a location');
  const data = readData(location);
  const offset = Number(entries.get('offset') ?? 0);
  const length = entries.has('length') ? Number(entries.get('length')) : data.length - offset;
  const kept = fields.filter((field) => field.field !== TENSOR_EXTERNAL_DATA && field.field !== TENSOR_DATA_LOCATION);
  return writeFields([...kept, { field: TENSOR_RAW_DATA, wire: 2, value: data.subarray(offset, offset + length) }]);
}

/** The message with the length-delimited fields named in `edits` replaced by what their function returns. */
function rewrite(message: Uint8Array, edits: Record<number, (bytes: Uint8Array) => Uint8Array>): Uint8Array {
  return writeFields(
    readFields(message).map((field) => {
      const edit = edits[field.field];
      return edit && field.wire === 2 ? { ...field, value: edit(field.value) } : field;
    }),
  );
}
