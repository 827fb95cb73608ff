/**
 * Adds to a Whisper decoder graph (optimum's decoder_model_merged) an input `logits_from`
 * (int64 [1]): the first of the tokens read whose logits the run gives, the hidden states before
 * it sliced off ahead of the output projection. A prompt read to fill the cache passes the
 * number of tokens read, and gets no logits at all.
 *
 * Why: onnxruntime runs every node, fetched or not, and the output projection is the decoder's
 * largest product (the whole vocabulary for every token read): for a prompt chunk it took about
 * half the run, for logits nobody reads (docs/benchmarks.md, "Speech to text").
 */
import {
  ATTRIBUTE_GRAPH,
  GRAPH_INPUT,
  GRAPH_NODE,
  GRAPH_OUTPUT,
  MODEL_GRAPH,
  NODE_ATTRIBUTE,
  NODE_INPUT,
  type GraphNode,
  graphNodes,
  int64TensorAttribute,
  lastIndexOf,
  newNode,
  tensorInput,
  valueInfoName,
} from './onnx-graph-fields.js';
import { messageField, readFields, textField, writeFields, type ProtoField } from './protobuf-fields.js';
import { LOGITS, LOGITS_FROM } from './rewrite-contract.js';

const INT64 = 7;

/** The model with `logits_from` added, or unchanged (`added` false) when its graph is not the shape this knows. */
export function addLogitsFrom(model: Uint8Array): { model: Uint8Array; added: boolean } {
  const unchanged = { model, added: false };
  const modelFields = readFields(model);
  const graphAt = modelFields.findIndex((field) => field.field === MODEL_GRAPH && field.wire === 2);
  if (graphAt < 0) return unchanged;
  const graph = readFields(modelFields[graphAt]!.value as Uint8Array);
  const nodes = graphNodes(graph);
  const ifAt = nodes.findIndex((node) => node?.opType === 'If' && node.outputs.includes(LOGITS));
  const inputs = graph.flatMap((field) => (field.field === GRAPH_INPUT && field.wire === 2 ? [valueInfoName(field.value)] : []));
  if (ifAt < 0 || inputs.includes(LOGITS_FROM)) return unchanged;
  const ifNode = nodes[ifAt]!;
  const logitsAt = ifNode.outputs.indexOf(LOGITS);
  let branches = 0;
  let failed = false;
  const ifFields = ifNode.fields.map((field) => {
    if (field.field !== NODE_ATTRIBUTE || field.wire !== 2) return field;
    return messageField(
      NODE_ATTRIBUTE,
      readFields(field.value).map((attributeField) => {
        if (attributeField.field !== ATTRIBUTE_GRAPH || attributeField.wire !== 2) return attributeField;
        const branch = slicedBranch(readFields(attributeField.value), logitsAt, branches);
        if (!branch) failed = true;
        branches++;
        return branch ? messageField(ATTRIBUTE_GRAPH, branch) : attributeField;
      }),
    );
  });
  if (failed || branches !== 2) return unchanged;
  const newGraph = graph.map((field, index) => (index === ifAt ? messageField(GRAPH_NODE, ifFields) : field));
  newGraph.splice(lastIndexOf(newGraph, GRAPH_INPUT) + 1, 0, tensorInput(LOGITS_FROM, INT64, [1]));
  const rewritten = modelFields.map((field, index) => (index === graphAt ? messageField(MODEL_GRAPH, newGraph) : field));
  return { model: writeFields(rewritten), added: true };
}

/**
 * The branch with the hidden states sliced from `logits_from` on before the product that makes its
 * logits: a MatMul (fp32), or a dynamically quantized one (q8: DynamicQuantizeLinear of the hidden
 * states, MatMulInteger, then Cast and Mul by the scales), whose quantizer then reads only the
 * rows kept, as it did when a prompt was read in passes of its own before the start tokens.
 */
function slicedBranch(branch: ProtoField[], logitsAt: number, index: number): ProtoField[] | undefined {
  const outputs = branch.flatMap((field) => (field.field === GRAPH_OUTPUT && field.wire === 2 ? [valueInfoName(field.value)] : []));
  const nodes = graphNodes(branch);
  const producer = (name: string) => nodes.findIndex((node) => node?.outputs.includes(name));
  const projectionAt = producer(outputs[logitsAt] ?? '');
  const readerAt = projectionAt >= 0 && nodes[projectionAt]!.opType === 'MatMul' ? projectionAt : quantizerOf(nodes, projectionAt, producer);
  const reader = nodes[readerAt];
  if (!reader) return undefined;
  const hidden = reader.inputs[0]!;
  const prefix = `logits_from/${index}`;
  const sliced = [
    newNode('Constant', `${prefix}/end`, [], [`${prefix}/end`], [int64TensorAttribute('value', [Number.MAX_SAFE_INTEGER])]),
    newNode('Constant', `${prefix}/axis`, [], [`${prefix}/axis`], [int64TensorAttribute('value', [1])]),
    newNode('Slice', `${prefix}/hidden`, [hidden, LOGITS_FROM, `${prefix}/end`, `${prefix}/axis`], [`${prefix}/hidden`]),
  ];
  const reading = messageField(
    GRAPH_NODE,
    reader.fields.map((field) =>
      field.field === NODE_INPUT && field.wire === 2 && new TextDecoder().decode(field.value) === hidden ? textField(NODE_INPUT, `${prefix}/hidden`) : field,
    ),
  );
  return branch.flatMap((field, at) => (at === readerAt ? [...sliced, reading] : [field]));
}

/**
 * Of a quantized projection ending at node `at` (Mul by the scales ← Cast ← MatMulInteger), the
 * DynamicQuantizeLinear that quantizes its hidden states; -1 for any other shape.
 */
function quantizerOf(nodes: readonly (GraphNode | undefined)[], at: number, producer: (name: string) => number): number {
  const mul = nodes[at];
  if (mul?.opType !== 'Mul') return -1;
  const castAt = mul.inputs.map(producer).find((input) => nodes[input]?.opType === 'Cast') ?? -1;
  const product = nodes[producer(nodes[castAt]?.inputs[0] ?? '')];
  if (product?.opType !== 'MatMulInteger') return -1;
  const quantizerAt = producer(product.inputs[0] ?? '');
  return nodes[quantizerAt]?.opType === 'DynamicQuantizeLinear' ? quantizerAt : -1;
}
