/**
 * Minimal ONNX ModelProto bytes for installer tests: initializers stored as external data
 * (`location`, `offset`, `length` in TensorProto.external_data), optionally inside an If branch,
 * as an exported graph lays them out. Not runnable graphs: they carry only what the file checks read.
 */
import { messageField, textField, varintField, writeFields, type ProtoField } from '../../src/inference/speech-to-text/graph/protobuf-fields.js';

export interface ExternalTensor {
  location: string;
  offset?: number;
  /** Omitted: the length follows from `dims` and float32 elements, as onnx allows. */
  length?: number;
  dims?: number[];
}

function tensor(spec: ExternalTensor, name: string): ProtoField[] {
  const entry = (key: string, value: string) => messageField(13, [textField(1, key), textField(2, value)]);
  return [
    ...(spec.dims ?? [spec.length ?? 0]).map((dim) => varintField(1, dim)),
    varintField(2, 1), // FLOAT
    textField(8, name),
    entry('location', spec.location),
    ...(spec.offset === undefined ? [] : [entry('offset', String(spec.offset))]),
    ...(spec.length === undefined ? [] : [entry('length', String(spec.length))]),
    varintField(14, 1), // EXTERNAL
  ];
}

/** A graph with `initializers` in the main graph and `inBranch` in the then-branch of an If node. */
export function tinyOnnx(initializers: readonly ExternalTensor[], inBranch: readonly ExternalTensor[] = []): Buffer {
  const branch = [textField(2, 'then'), ...inBranch.map((spec, i) => messageField(5, tensor(spec, `b${i}`)))];
  const node = [textField(4, 'If'), messageField(5, [textField(1, 'then_branch'), messageField(6, branch), varintField(20, 5)])];
  const graph = [messageField(1, node), textField(2, 'g'), ...initializers.map((spec, i) => messageField(5, tensor(spec, `w${i}`)))];
  return Buffer.from(writeFields([varintField(1, 8), messageField(7, graph)]));
}
