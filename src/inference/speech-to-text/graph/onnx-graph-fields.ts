/**
 * The few ONNX protobuf messages the decoder graph rewrites edit (grouped-cross-attention.ts,
 * self-attention-steps.ts), over the schema-less fields of protobuf-fields.ts: onnx.proto's field
 * numbers, a node read for its names, and the nodes and attributes the rewrites add.
 */
import { messageField, readFields, texts, textField, varintField, type ProtoField } from './protobuf-fields.js';

// onnx.proto field numbers.
export const MODEL_GRAPH = 7;
export const GRAPH_NODE = 1;
export const GRAPH_INPUT = 11;
export const GRAPH_OUTPUT = 12;
export const NODE_INPUT = 1;
export const NODE_OUTPUT = 2;
export const NODE_NAME = 3;
export const NODE_OP_TYPE = 4;
export const NODE_ATTRIBUTE = 5;
export const ATTRIBUTE_NAME = 1;
export const ATTRIBUTE_GRAPH = 6;
const ATTRIBUTE_INT = 3;
const ATTRIBUTE_TENSOR = 5;
const ATTRIBUTE_TYPE = 20;
const ATTRIBUTE_TYPE_INT = 2;
const ATTRIBUTE_TYPE_TENSOR = 4;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_RAW_DATA = 9;
const TENSOR_INT64 = 7;
const VALUE_INFO_NAME = 1;
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TYPE_TENSOR_ELEM_TYPE = 1;
const TYPE_TENSOR_SHAPE = 2;
const SHAPE_DIM = 1;
const DIM_VALUE = 1;

export interface GraphNode {
  fields: ProtoField[];
  name: string;
  opType: string;
  inputs: string[];
  outputs: string[];
}

export function graphNode(bytes: Uint8Array): GraphNode {
  const fields = readFields(bytes);
  return {
    fields,
    name: texts(fields, NODE_NAME)[0] ?? '',
    opType: texts(fields, NODE_OP_TYPE)[0] ?? '',
    inputs: texts(fields, NODE_INPUT),
    outputs: texts(fields, NODE_OUTPUT),
  };
}

/** A graph's `field` entries read as nodes (undefined for its other fields), in field order. */
export function graphNodes(graph: readonly ProtoField[]): (GraphNode | undefined)[] {
  return graph.map((field) => (field.field === GRAPH_NODE && field.wire === 2 ? graphNode(field.value) : undefined));
}

export function newNode(opType: string, name: string, inputs: readonly string[], outputs: readonly string[], attributes: ProtoField[][] = []): ProtoField {
  return messageField(GRAPH_NODE, [
    ...inputs.map((input) => textField(NODE_INPUT, input)),
    ...outputs.map((output) => textField(NODE_OUTPUT, output)),
    textField(NODE_NAME, name),
    textField(NODE_OP_TYPE, opType),
    ...attributes.map((attribute) => messageField(NODE_ATTRIBUTE, attribute)),
  ]);
}

export function intAttribute(name: string, value: number): ProtoField[] {
  return [textField(ATTRIBUTE_NAME, name), varintField(ATTRIBUTE_INT, value), varintField(ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INT)];
}

export function int64TensorAttribute(name: string, values: readonly number[]): ProtoField[] {
  const raw = new Uint8Array(BigInt64Array.from(values, (value) => BigInt(value)).buffer);
  const tensor = [
    varintField(TENSOR_DIMS, values.length),
    varintField(TENSOR_DATA_TYPE, TENSOR_INT64),
    { field: TENSOR_RAW_DATA, wire: 2 as const, value: raw },
  ];
  return [textField(ATTRIBUTE_NAME, name), messageField(ATTRIBUTE_TENSOR, tensor), varintField(ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_TENSOR)];
}

/** The name of a graph input or output (a ValueInfoProto). */
export function valueInfoName(bytes: Uint8Array): string {
  return texts(readFields(bytes), VALUE_INFO_NAME)[0] ?? '';
}

/** The element type of a tensor ValueInfoProto (onnx's TensorProto.DataType), undefined for another type. */
export function valueInfoElementType(bytes: Uint8Array): number | undefined {
  const type = readFields(bytes).find((field) => field.field === VALUE_INFO_TYPE && field.wire === 2);
  const tensor = type?.wire === 2 ? readFields(type.value).find((field) => field.field === TYPE_TENSOR && field.wire === 2) : undefined;
  const element = tensor?.wire === 2 ? readFields(tensor.value).find((field) => field.field === TYPE_TENSOR_ELEM_TYPE && field.wire === 0) : undefined;
  return element?.wire === 0 ? Number(element.value) : undefined;
}

/** A graph output of a tensor of `elementType` and any shape. */
export function tensorOutput(name: string, elementType: number): ProtoField {
  return messageField(GRAPH_OUTPUT, [
    textField(VALUE_INFO_NAME, name),
    messageField(VALUE_INFO_TYPE, [messageField(TYPE_TENSOR, [varintField(TYPE_TENSOR_ELEM_TYPE, elementType)])]),
  ]);
}

/** A graph input of a tensor of `elementType`, of the fixed shape `dims` or (absent) any. */
export function tensorInput(name: string, elementType: number, dims?: readonly number[]): ProtoField {
  const shape = dims
    ? [
        messageField(
          TYPE_TENSOR_SHAPE,
          dims.map((dim) => messageField(SHAPE_DIM, [varintField(DIM_VALUE, dim)])),
        ),
      ]
    : [];
  return messageField(GRAPH_INPUT, [
    textField(VALUE_INFO_NAME, name),
    messageField(VALUE_INFO_TYPE, [messageField(TYPE_TENSOR, [varintField(TYPE_TENSOR_ELEM_TYPE, elementType), ...shape])]),
  ]);
}

/** The index of the last `field` entry of a message, -1 when it has none. */
export function lastIndexOf(fields: readonly ProtoField[], field: number): number {
  for (let index = fields.length - 1; index >= 0; index--) if (fields[index]!.field === field) return index;
  return -1;
}
