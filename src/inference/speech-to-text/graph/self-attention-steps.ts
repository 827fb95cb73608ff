/**
 * Rewrites a Whisper decoder graph (optimum's decoder_model_merged) so that its self-attention
 * cache is returned as `step.N.decoder.key` / `.value` in place of `present.N.decoder.*`: only
 * the keys and values of the positions this run read, [rows, heads, tokens, size] (in the first
 * pass, which has no past, that is the whole present as before). In the cached branch each
 * self-attention then reads its past and its new positions apart, with no Concat of the two:
 * scores = [q·pastᵀ, q·newᵀ], and the weighted values = p[:L]·past + p[L:]·new, which is the
 * same sum. It also takes `shared.N.decoder.*`: positions every row holds alike (a search's prompt
 * and start tokens), given once as one row and read as a third part before each row's own
 * (scores [q·sharedᵀ, q·pastᵀ, q·newᵀ], the positions counted from the shared ones on); a
 * decode that shares none gives it no positions.
 *
 * Joined (`{ joined: true }`, for a graph that quantizes activations per run, q8): the cached
 * branch keeps its Concat of past and new, now of shared (repeated to every row), past and new,
 * so that every node after it reads the very tensor it read before, bit for bit; only the
 * outputs change, to the new positions (the Concat's second input). Split, the attention sums
 * its parts in another order, and q8's quantizers after it turn that rounding into other tokens.
 *
 * Why: onnxruntime-node copies every fetched output into a new JavaScript buffer. A search step's
 * present caches are the whole self-attention cache again: fetching them, and the Concat that
 * made them, were a large share of a step (docs/benchmarks.md, "Speech to text"). The cache is
 * kept on our side instead (self-attention-rows.ts), and only the new positions cross. Only the
 * graph's structure is edited; the weights stay in their file.
 */
import {
  ATTRIBUTE_GRAPH,
  ATTRIBUTE_NAME,
  GRAPH_NODE,
  GRAPH_INPUT,
  GRAPH_OUTPUT,
  MODEL_GRAPH,
  NODE_ATTRIBUTE,
  NODE_INPUT,
  NODE_NAME,
  NODE_OP_TYPE,
  NODE_OUTPUT,
  graphNodes,
  int64TensorAttribute,
  intAttribute,
  lastIndexOf,
  newNode,
  tensorInput,
  tensorOutput,
  valueInfoElementType,
  valueInfoName,
} from './onnx-graph-fields.js';
import { messageField, readFields, texts, textField, writeFields, type ProtoField } from './protobuf-fields.js';
import { PAST_SELF_ATTENTION as PAST_DECODER, PRESENT_SELF_ATTENTION as PRESENT_DECODER, sharedInputName, stepOutputName } from './rewrite-contract.js';

/**
 * The model with its presents made step outputs, and how many; `outputs` 0 (the model
 * unchanged) when its graph is not the shape this knows: one top-level If whose cached branch
 * concatenates each past with the new positions, read (unless `joined`) only by the attention's
 * two products.
 */
export function addSelfAttentionSteps(model: Uint8Array, { joined = false } = {}): { model: Uint8Array; outputs: number } {
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
  const graphOutputs = new Map(
    graph.flatMap((field, index) =>
      field.field === GRAPH_OUTPUT && field.wire === 2 ? [[valueInfoName(field.value), { index, info: field.value }] as const] : [],
    ),
  );
  const elementTypes = presents.map(({ position }) => {
    const output = graphOutputs.get(ifNode.outputs[position]!);
    return output && valueInfoElementType(output.info);
  });
  if (elementTypes.some((type) => type === undefined)) return unchanged;

  let failed = false;
  let cachedBranches = 0;
  const ifFields = ifNode.fields.map((field) => {
    if (field.field !== NODE_ATTRIBUTE || field.wire !== 2) return field;
    const attribute = readFields(field.value);
    const branchName = texts(attribute, ATTRIBUTE_NAME)[0] ?? '';
    return messageField(
      NODE_ATTRIBUTE,
      attribute.map((attributeField) => {
        if (attributeField.field !== ATTRIBUTE_GRAPH || attributeField.wire !== 2) return attributeField;
        const branch = readFields(attributeField.value);
        const split = splitBranch(branch, presents, elementTypes as number[], branchName, joined);
        if (split === 'not cached') return attributeField;
        if (!split) failed = true;
        else cachedBranches++;
        return split ? messageField(ATTRIBUTE_GRAPH, split) : attributeField;
      }),
    );
  });
  if (failed || cachedBranches !== 1) return unchanged;
  // The presents' places keep their order; only their names change.
  let outputAt = -1;
  const renamed = ifFields.map((field) => {
    if (field.field !== NODE_OUTPUT || field.wire !== 2) return field;
    outputAt++;
    const present = presents.find(({ position }) => position === outputAt);
    return present ? textField(NODE_OUTPUT, present.step) : field;
  });
  const stepOutputs = new Map(
    presents.map(({ position, step }, index) => [graphOutputs.get(ifNode.outputs[position]!)!.index, tensorOutput(step, elementTypes[index]!)]),
  );
  const newGraph = graph.map((field, index) => (index === ifAt ? messageField(GRAPH_NODE, renamed) : (stepOutputs.get(index) ?? field)));
  // The shared positions' inputs, one per past (read by the cached branch only).
  const pasts = graph
    .flatMap((field) => (field.field === GRAPH_INPUT && field.wire === 2 ? [valueInfoName(field.value)] : []))
    .filter((name) => PAST_DECODER.test(name));
  newGraph.splice(lastIndexOf(newGraph, GRAPH_INPUT) + 1, 0, ...pasts.map((past) => tensorInput(sharedInputName(past), elementTypes[0]!)));
  const rewritten = modelFields.map((field, index) => (index === graphAt ? messageField(MODEL_GRAPH, newGraph) : field));
  return { model: writeFields(rewritten), outputs: presents.length };
}

/**
 * The cached branch with its self-attention split (no Concat of past and new), or `joined` (the
 * Concat kept, the shared positions put before the past), its presents' outputs the new
 * positions; 'not cached' for a branch whose presents read no past (they are all new already);
 * undefined when a past is read any other way than this knows.
 */
function splitBranch(
  branch: ProtoField[],
  presents: readonly { position: number; step: string }[],
  elementTypes: readonly number[],
  branchName: string,
  joined: boolean,
): ProtoField[] | 'not cached' | undefined {
  const nodes = graphNodes(branch);
  const outputs = branch.flatMap((field, index) => (field.field === GRAPH_OUTPUT && field.wire === 2 ? [{ name: valueInfoName(field.value), index }] : []));
  const producer = new Map<string, number>();
  const consumers = new Map<string, number[]>();
  nodes.forEach((node, index) => {
    for (const output of node?.outputs ?? []) producer.set(output, index);
    for (const input of node?.inputs ?? []) consumers.set(input, [...(consumers.get(input) ?? []), index]);
  });
  const concats = presents.map(({ position }) => {
    const output = outputs[position];
    const at = output && producer.get(output.name);
    return at === undefined ? undefined : { output: output!, at, node: nodes[at]! };
  });
  if (concats.some((concat) => concat === undefined)) return undefined;
  const readsPast = concats.map((concat) => concat!.node.inputs.some((input) => PAST_DECODER.test(input)));
  if (readsPast.every((reads) => !reads)) return 'not cached';
  if (!readsPast.every(Boolean)) return undefined;

  /** Nodes removed (by field index), and nodes put in their place. */
  const replaced = new Map<number, ProtoField[]>();
  const drop = (at: number, added: ProtoField[] = []) => replaced.set(at, [...(replaced.get(at) ?? []), ...added]);
  /** Branch outputs renamed, by field index. */
  const renamedOutputs = new Map<number, ProtoField>();
  for (const [index, concat] of concats.entries()) {
    const { node, at, output } = concat!;
    if (node.opType !== 'Concat' || node.inputs.length !== 2 || !PAST_DECODER.test(node.inputs[0]!)) return undefined;
    const [past, fresh] = node.inputs as [string, string];
    const shared = sharedInputName(past);
    const present = node.outputs[0]!;
    const prefix = `${present}/split`;
    const length = (name: string, tensor: string) => newNode('Shape', name, [tensor], [name], [intAttribute('start', 2), intAttribute('end', 3)]);
    drop(at);
    if (joined) drop(at, joinedPresent(`${present}/joined`, node, [shared, past, fresh]));
    for (const consumerAt of joined ? [] : (consumers.get(present) ?? [])) {
      const consumer = nodes[consumerAt]!;
      if (consumer.opType === 'Shape') {
        // The present's shape, from its parts: [rows, heads, shared + past + new, size].
        drop(consumerAt, shapeOf(prefix, [shared, past, fresh], past, consumer.outputs));
      } else if (consumer.opType === 'Transpose') {
        // The keys transposed for the scores q·kᵀ: each part transposed, the products joined.
        const uses = consumers.get(consumer.outputs[0]!) ?? [];
        const scores = uses.length === 1 ? nodes[uses[0]!]! : undefined;
        if (scores?.opType !== 'MatMul' || scores.inputs[1] !== consumer.outputs[0]) return undefined;
        const permutation = consumer.fields.filter((field) => field.field === NODE_ATTRIBUTE);
        const transposed = (name: string, input: string) =>
          messageField(GRAPH_NODE, [
            textField(NODE_INPUT, input),
            textField(NODE_OUTPUT, name),
            textField(NODE_NAME, name),
            textField(NODE_OP_TYPE, 'Transpose'),
            ...permutation,
          ]);
        const parts = [
          ['shared', shared],
          ['past', past],
          ['new', fresh],
        ] as const;
        drop(consumerAt);
        drop(uses[0]!, [
          ...parts.flatMap(([part, input]) => [
            transposed(`${prefix}/${part}_transposed`, input),
            newNode('MatMul', `${prefix}/${part}_scores`, [scores.inputs[0]!, `${prefix}/${part}_transposed`], [`${prefix}/${part}_scores`]),
          ]),
          newNode(
            'Concat',
            `${prefix}/scores`,
            parts.map(([part]) => `${prefix}/${part}_scores`),
            scores.outputs,
            [intAttribute('axis', -1)],
          ),
        ]);
      } else if (consumer.opType === 'MatMul' && consumer.inputs[1] === present && consumer.inputs[0] !== present) {
        // The weighted values p·v: the weights split where each part ends, each part times its values.
        const weights = consumer.inputs[0]!;
        drop(consumerAt, [
          newNode('Constant', `${prefix}/zero`, [], [`${prefix}/zero`], [int64TensorAttribute('value', [0])]),
          newNode('Constant', `${prefix}/last_axis`, [], [`${prefix}/last_axis`], [int64TensorAttribute('value', [-1])]),
          newNode('Constant', `${prefix}/end`, [], [`${prefix}/end`], [int64TensorAttribute('value', [Number.MAX_SAFE_INTEGER])]),
          length(`${prefix}/shared_length`, shared),
          length(`${prefix}/past_length`, past),
          newNode('Add', `${prefix}/old_length`, [`${prefix}/shared_length`, `${prefix}/past_length`], [`${prefix}/old_length`]),
          newNode(
            'Slice',
            `${prefix}/shared_weights`,
            [weights, `${prefix}/zero`, `${prefix}/shared_length`, `${prefix}/last_axis`],
            [`${prefix}/shared_weights`],
          ),
          newNode(
            'Slice',
            `${prefix}/past_weights`,
            [weights, `${prefix}/shared_length`, `${prefix}/old_length`, `${prefix}/last_axis`],
            [`${prefix}/past_weights`],
          ),
          newNode('Slice', `${prefix}/new_weights`, [weights, `${prefix}/old_length`, `${prefix}/end`, `${prefix}/last_axis`], [`${prefix}/new_weights`]),
          newNode('MatMul', `${prefix}/shared_values`, [`${prefix}/shared_weights`, shared], [`${prefix}/shared_values`]),
          newNode('MatMul', `${prefix}/past_values`, [`${prefix}/past_weights`, past], [`${prefix}/past_values`]),
          newNode('MatMul', `${prefix}/new_values`, [`${prefix}/new_weights`, fresh], [`${prefix}/new_values`]),
          newNode('Add', `${prefix}/old_values`, [`${prefix}/shared_values`, `${prefix}/past_values`], [`${prefix}/old_values`]),
          newNode('Add', `${prefix}/values`, [`${prefix}/old_values`, `${prefix}/new_values`], consumer.outputs),
        ]);
      } else return undefined;
    }
    const name = `${presents[index]!.step}/${branchName}`;
    drop(at, [newNode('Identity', name, [fresh], [name])]);
    renamedOutputs.set(output.index, tensorOutput(name, elementTypes[index]!));
  }
  // Where the branch reads how long the past is (the positions of the tokens read), the shared part counts too.
  for (const [index, node] of nodes.entries()) {
    if (node?.opType !== 'Shape' || !PAST_DECODER.test(node.inputs[0] ?? '') || node.fields.some((field) => field.field === NODE_ATTRIBUTE)) continue;
    const past = node.inputs[0]!;
    drop(index, shapeOf(`${past}/with_shared`, [sharedInputName(past), past], past, node.outputs));
  }
  return branch.flatMap((field, index) => replaced.get(index) ?? [renamedOutputs.get(index) ?? field]);
}

/**
 * Nodes making the present `concat` made of [shared, past, new] in place of [past, new]: the
 * shared positions' one row repeated to the past's rows (Expand by [rows, 1, 1, 1]), then
 * concatenated as the graph's own Concat does (its name, axis and output kept).
 */
function joinedPresent(prefix: string, concat: { fields: ProtoField[]; outputs: readonly string[] }, [shared, past, fresh]: readonly string[]): ProtoField[] {
  return [
    newNode('Shape', `${prefix}/rows`, [past!], [`${prefix}/rows`], [intAttribute('start', 0), intAttribute('end', 1)]),
    newNode('Constant', `${prefix}/ones`, [], [`${prefix}/ones`], [int64TensorAttribute('value', [1, 1, 1])]),
    newNode('Concat', `${prefix}/shared_shape`, [`${prefix}/rows`, `${prefix}/ones`], [`${prefix}/shared_shape`], [intAttribute('axis', 0)]),
    newNode('Expand', `${prefix}/shared_rows`, [shared!, `${prefix}/shared_shape`], [`${prefix}/shared_rows`]),
    messageField(GRAPH_NODE, [
      textField(NODE_INPUT, `${prefix}/shared_rows`),
      textField(NODE_INPUT, past!),
      textField(NODE_INPUT, fresh!),
      ...concat.fields.filter((field) => field.field !== NODE_INPUT),
    ]),
  ];
}

/** Nodes making `outputs` the shape of `like` ([rows, heads, length, size]) with the lengths of `parts` added up. */
function shapeOf(prefix: string, parts: readonly string[], like: string, outputs: readonly string[]): ProtoField[] {
  const lengths = parts.map((part, index) => {
    const name = `${prefix}/length_${index}`;
    return { name, node: newNode('Shape', name, [part], [name], [intAttribute('start', 2), intAttribute('end', 3)]) };
  });
  const sums: ProtoField[] = [];
  let sum = lengths[0]!.name;
  for (const [index, { name }] of lengths.slice(1).entries()) {
    const next = `${prefix}/sum_${index}`;
    sums.push(newNode('Add', next, [sum, name], [next]));
    sum = next;
  }
  return [
    newNode('Shape', `${prefix}/lead`, [like], [`${prefix}/lead`], [intAttribute('start', 0), intAttribute('end', 2)]),
    ...lengths.map(({ node }) => node),
    ...sums,
    newNode('Shape', `${prefix}/size`, [like], [`${prefix}/size`], [intAttribute('start', 3)]),
    newNode('Concat', `${prefix}/shape`, [`${prefix}/lead`, sum, `${prefix}/size`], outputs, [intAttribute('axis', 0)]),
  ];
}
