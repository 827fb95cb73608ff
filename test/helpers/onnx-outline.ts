/**
 * The reverse of onnx-inline.ts: moves the bytes of a graph's initializers (main graph and
 * subgraphs) out into one external-data file, as the test models and every hub model over 2 GB
 * lay them out (`<file>.onnx_data`). The fixture models keep their weights inside the graph;
 * this gives the tests a model with external weights to damage.
 */

import { messageField, readFields, textField, varintField, writeFields, type ProtoField } from '../../src/inference/speech-to-text/graph/protobuf-fields.js';

// Field numbers of onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const NODE_ATTRIBUTE = 5;
const ATTRIBUTE_G = 6;
const ATTRIBUTE_GRAPHS = 11;
const TENSOR_RAW_DATA = 9;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;
const EXTERNAL = 1;
const ENTRY_KEY = 1;
const ENTRY_VALUE = 2;

/** `model` with every initializer of at least `minBytes` moved into `location`; returns both files' bytes. */
export function outlineWeights(model: Uint8Array, location: string, minBytes = 1024): { graph: Buffer; data: Buffer } {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const tensor = (bytes: Uint8Array): Uint8Array => {
    const fields = readFields(bytes);
    const raw = fields.find((field) => field.field === TENSOR_RAW_DATA && field.wire === 2);
    if (raw?.wire !== 2 || raw.value.length < minBytes) return bytes;
    const entry = (key: string, value: string) => messageField(TENSOR_EXTERNAL_DATA, [textField(ENTRY_KEY, key), textField(ENTRY_VALUE, value)]);
    const moved = [
      ...fields.filter((field) => field !== raw),
      entry('location', location),
      entry('offset', String(offset)),
      entry('length', String(raw.value.length)),
      varintField(TENSOR_DATA_LOCATION, EXTERNAL),
    ];
    chunks.push(raw.value);
    offset += raw.value.length;
    return writeFields(moved);
  };
  const graph = (bytes: Uint8Array): Uint8Array => {
    const attribute = (one: Uint8Array) => rewrite(one, { [ATTRIBUTE_G]: graph, [ATTRIBUTE_GRAPHS]: graph });
    const node = (one: Uint8Array) => rewrite(one, { [NODE_ATTRIBUTE]: attribute });
    return rewrite(bytes, { [GRAPH_NODE]: node, [GRAPH_INITIALIZER]: tensor });
  };
  const out = rewrite(model, { [MODEL_GRAPH]: graph });
  return { graph: Buffer.from(out), data: Buffer.concat(chunks) };
}

function rewrite(bytes: Uint8Array, edits: Record<number, (value: Uint8Array) => Uint8Array>): Uint8Array {
  const fields = readFields(bytes).map((field): ProtoField => {
    const edit = edits[field.field];
    return edit && field.wire === 2 ? { field: field.field, wire: 2, value: edit(field.value) } : field;
  });
  return writeFields(fields);
}
