/**
 * Adds to a Whisper decoder graph (optimum's decoder_model_merged) an output `step.N.decoder.key`
 * / `.value` beside each `present.N.decoder.*`: only the keys and values of the tokens this run
 * read, [rows, heads, tokens, size], the second input of the Concat that makes the present cache
 * in the cached branch (the whole present in the first pass, which has no past).
 *
 * Why: onnxruntime-node copies every fetched output into a new JavaScript buffer. A search step's
 * present caches are the whole self-attention cache again (14 MB for 5 rows of tiny.en at 230
 * tokens), and fetching them cost ~5.6 ms of a ~19-ms step, before the garbage collector's share
 * (docs/benchmarks.md, "Speech to text"). With the step outputs the cache is kept on our side
 * (self-attention-rows.ts), and only the new positions cross. The present outputs stay, so a
 * caller may fetch either. Only the graph's structure is edited; the weights stay in their file.
 */
import {
  ATTRIBUTE_GRAPH,
  ATTRIBUTE_NAME,
  GRAPH_NODE,
  GRAPH_OUTPUT,
  MODEL_GRAPH,
  NODE_ATTRIBUTE,
  NODE_OUTPUT,
  type graphNode,
  graphNodes,
  lastIndexOf,
  newNode,
  tensorOutput,
  valueInfoElementType,
  valueInfoName,
} from '../onnx-graph-fields.js';
import { messageField, readFields, texts, textField, writeFields, type ProtoField } from '../protobuf-fields.js';

const PRESENT_DECODER = /^present\.(\d+)\.decoder\.(key|value)$/;

/** The step output beside `present.N.decoder.*`. */
export function stepOutputName(present: string): string {
  return present.replace(/^present\./, 'step.');
}

/** The past input a present or step output feeds on the next run. */
export function pastInputName(output: string): string {
  return output.replace(/^(present|step)\./, 'past_key_values.');
}

/**
 * The model with the step outputs added, and how many; `outputs` 0 (the model unchanged) when
 * its graph is not the shape this knows: one top-level If whose branches make the presents.
 */
export function addSelfAttentionSteps(model: Uint8Array): { model: Uint8Array; outputs: number } {
  const unchanged = { model, outputs: 0 };
  const modelFields = readFields(model);
  const graphAt = modelFields.findIndex((field) => field.field === MODEL_GRAPH && field.wire === 2);
  if (graphAt < 0) return unchanged;
  const graph = readFields(modelFields[graphAt]!.value as Uint8Array);
  const nodes = graphNodes(graph);
  const ifAt = nodes.findIndex((node) => node?.opType === 'If' && node.outputs.some((output) => PRESENT_DECODER.test(output)));
  if (ifAt < 0) return unchanged;
  const ifNode = nodes[ifAt]!;
  /** Positions among the If's outputs of the presents, and their step outputs' names. */
  const presents = ifNode.outputs.flatMap((output, position) => (PRESENT_DECODER.test(output) ? [{ position, step: stepOutputName(output) }] : []));
  if (presents.some(({ step }) => ifNode.outputs.includes(step))) return unchanged;
  const graphOutputs = new Map(
    graph.flatMap((field) => (field.field === GRAPH_OUTPUT && field.wire === 2 ? [[valueInfoName(field.value), field.value] as const] : [])),
  );
  const elementTypes = presents.map(({ position }) => {
    const info = graphOutputs.get(ifNode.outputs[position]!);
    return info && valueInfoElementType(info);
  });
  if (elementTypes.some((type) => type === undefined)) return unchanged;

  let failed = false;
  const ifFields = ifNode.fields.map((field) => {
    if (field.field !== NODE_ATTRIBUTE || field.wire !== 2) return field;
    const attribute = readFields(field.value);
    const branchName = texts(attribute, ATTRIBUTE_NAME)[0] ?? '';
    return messageField(
      NODE_ATTRIBUTE,
      attribute.map((attributeField) => {
        if (attributeField.field !== ATTRIBUTE_GRAPH || attributeField.wire !== 2) return attributeField;
        const branch = withStepOutputs(readFields(attributeField.value), presents, elementTypes as number[], branchName);
        if (!branch) failed = true;
        return branch ? messageField(ATTRIBUTE_GRAPH, branch) : attributeField;
      }),
    );
  });
  if (failed) return unchanged;
  // The If's new outputs go after its last output, in the branches' order.
  const lastOutput = lastIndexOf(ifFields, NODE_OUTPUT);
  ifFields.splice(lastOutput + 1, 0, ...presents.map(({ step }) => textField(NODE_OUTPUT, step)));
  const newGraph = graph.map((field, index) => (index === ifAt ? messageField(GRAPH_NODE, ifFields) : field));
  const lastGraphOutput = lastIndexOf(newGraph, GRAPH_OUTPUT);
  newGraph.splice(lastGraphOutput + 1, 0, ...presents.map(({ step }, index) => tensorOutput(step, elementTypes[index]!)));
  const rewritten = modelFields.map((field, index) => (index === graphAt ? messageField(MODEL_GRAPH, newGraph) : field));
  return { model: writeFields(rewritten), outputs: presents.length };
}

/**
 * A branch with one more output per present, in the same order: the Concat's new part where the
 * branch concatenates a past with new keys, else the present itself (the branch without a past).
 * Undefined when a present is made any other way from a past.
 */
function withStepOutputs(
  branch: ProtoField[],
  presents: readonly { position: number; step: string }[],
  elementTypes: readonly number[],
  branchName: string,
): ProtoField[] | undefined {
  const outputs = branch.flatMap((field) => (field.field === GRAPH_OUTPUT && field.wire === 2 ? [valueInfoName(field.value)] : []));
  const producer = new Map<string, ReturnType<typeof graphNode>>();
  for (const node of graphNodes(branch)) for (const output of node?.outputs ?? []) producer.set(output, node!);
  const added: ProtoField[] = [];
  const addedOutputs: ProtoField[] = [];
  for (const [index, { position, step }] of presents.entries()) {
    const present = outputs[position];
    if (present === undefined) return undefined;
    const made = producer.get(present);
    const readsPast = made?.inputs.some((input) => input.startsWith('past_key_values.')) ?? false;
    let source = present;
    if (readsPast) {
      if (made!.opType !== 'Concat' || made!.inputs.length !== 2 || !made!.inputs[0]!.startsWith('past_key_values.')) return undefined;
      source = made!.inputs[1]!;
    }
    const name = `${step}/${branchName}`;
    added.push(newNode('Identity', name, [source], [name]));
    addedOutputs.push(tensorOutput(name, elementTypes[index]!));
  }
  const lastNode = lastIndexOf(branch, GRAPH_NODE);
  const lastOutput = lastIndexOf(branch, GRAPH_OUTPUT);
  return branch.flatMap((field, index) => [field, ...(index === lastNode ? added : []), ...(index === lastOutput ? addedOutputs : [])]);
}
