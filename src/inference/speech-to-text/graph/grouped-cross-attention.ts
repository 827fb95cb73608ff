/**
 * Rewrites a Whisper decoder graph (optimum's decoder_model_merged) so that, in its cached branch,
 * the cross-attention reads one row of cross-attention cache per window for all of that window's
 * rows: with the cache's batch axis W and the input's R = W × B rows (each window's B rows
 * together), each layer's query [R, T, heads, size] is reshaped to [W, B·T, heads, size] before its
 * transpose, so one product per window and head takes all B rows at once, and the rest of the
 * layer reads the result back as [R, T, …] unchanged. With W = R (a row of cache per row: the
 * greedy batch) the graph computes exactly what it did; with W = 1 it is the lone beam search's
 * broadcast row, as one product instead of B.
 *
 * Why: several windows' beams stepping together (search-batch-rows.ts) cannot share their windows'
 * cross-attention rows through the original graph, whose MatMul broadcasts one row over all or
 * none; each row then read a copy of its window's 18-MB cache (tiny.en), and a 20-row step cost as
 * much as four 5-row steps (docs/benchmarks.md, "Speech to text"). Only the graph's structure is
 * edited (a few added nodes per layer, found by the names optimum gives them); the weights stay in
 * their external data file.
 */
import {
  ATTRIBUTE_GRAPH,
  ATTRIBUTE_NAME,
  GRAPH_NODE,
  MODEL_GRAPH,
  NODE_ATTRIBUTE,
  NODE_INPUT,
  graphNode,
  graphNodes,
  int64TensorAttribute,
  intAttribute,
  newNode,
} from './onnx-graph-fields.js';
import { messageField, readFields, texts, textField, writeFields, type ProtoField } from './protobuf-fields.js';
import { CACHED_BRANCH, CROSS_ATTENTION_SCORES_NODE, PAST_PREFIX } from './rewrite-contract.js';

/**
 * The model with its cached cross-attention grouped by window, and how many layers were
 * rewritten; `layers` 0 (the model unchanged) when its graph is not the shape this knows.
 */
export function groupCrossAttention(model: Uint8Array): { model: Uint8Array; layers: number } {
  let layers = 0;
  const modelFields = readFields(model);
  const rewritten = modelFields.map((field) => {
    if (field.field !== MODEL_GRAPH || field.wire !== 2) return field;
    const graph = readFields(field.value).map((graphField) => {
      if (graphField.field !== GRAPH_NODE || graphField.wire !== 2) return graphField;
      const node = graphNode(graphField.value);
      if (node.opType !== 'If') return graphField;
      const fields = node.fields.map((nodeField) => {
        if (nodeField.field !== NODE_ATTRIBUTE || nodeField.wire !== 2) return nodeField;
        const attribute = readFields(nodeField.value);
        // then_branch: use_cache_branch true, the cross-attention read from past_key_values.
        if (texts(attribute, ATTRIBUTE_NAME)[0] !== CACHED_BRANCH) return nodeField;
        return messageField(
          NODE_ATTRIBUTE,
          attribute.map((attributeField) => {
            if (attributeField.field !== ATTRIBUTE_GRAPH || attributeField.wire !== 2) return attributeField;
            const branch = groupBranch(readFields(attributeField.value));
            layers += branch.layers;
            return messageField(ATTRIBUTE_GRAPH, branch.graph);
          }),
        );
      });
      return messageField(GRAPH_NODE, fields);
    });
    return messageField(MODEL_GRAPH, graph);
  });
  return layers === 0 ? { model, layers } : { model: writeFields(rewritten), layers };
}

/** The cached branch's graph with each cross-attention's query reshaped by window. */
function groupBranch(graph: ProtoField[]): { graph: ProtoField[]; layers: number } {
  const nodes = graphNodes(graph);
  const producer = new Map<string, number>();
  nodes.forEach((node, index) => {
    for (const output of node?.outputs ?? []) producer.set(output, index);
  });
  const minusOne = 'grouped_cross_attention/minus_one';
  /** Nodes to insert before a graph field, and the query transposes' replacements, by field index. */
  const before = new Map<number, ProtoField[]>();
  const replaced = new Map<number, ProtoField>();
  for (const node of nodes) {
    // The scores of layer N's cross-attention: MatMul(Transpose(query), Transpose(past encoder key)).
    if (node?.opType !== 'MatMul' || !CROSS_ATTENTION_SCORES_NODE.test(node.name)) continue;
    const queryAt = producer.get(node.inputs[0] ?? '');
    const keyAt = producer.get(node.inputs[1] ?? '');
    const queryTranspose = queryAt === undefined ? undefined : nodes[queryAt];
    const keyTranspose = keyAt === undefined ? undefined : nodes[keyAt];
    if (queryAt === undefined || queryTranspose?.opType !== 'Transpose' || keyTranspose?.opType !== 'Transpose') continue;
    const pastKey = keyTranspose.inputs[0]!;
    if (!pastKey.startsWith(PAST_PREFIX)) continue;
    const query = queryTranspose.inputs[0]!;
    const prefix = node.name.replace(/MatMul$/, 'GroupedByWindow');
    const added: ProtoField[] = [];
    if (before.size === 0) added.push(newNode('Constant', minusOne, [], [minusOne], [int64TensorAttribute('value', [-1])]));
    added.push(
      newNode('Shape', `${prefix}/windows`, [pastKey], [`${prefix}/windows`], [intAttribute('start', 0), intAttribute('end', 1)]),
      newNode('Shape', `${prefix}/heads`, [query], [`${prefix}/heads`], [intAttribute('start', 2)]),
      newNode('Concat', `${prefix}/shape`, [`${prefix}/windows`, minusOne, `${prefix}/heads`], [`${prefix}/shape`], [intAttribute('axis', 0)]),
      newNode('Reshape', `${prefix}/query`, [query, `${prefix}/shape`], [`${prefix}/query`]),
    );
    before.set(queryAt, added);
    replaced.set(
      queryAt,
      messageField(
        GRAPH_NODE,
        queryTranspose.fields.map((field) =>
          field.field === NODE_INPUT && field.wire === 2 && new TextDecoder().decode(field.value) === query ? textField(NODE_INPUT, `${prefix}/query`) : field,
        ),
      ),
    );
  }
  const out: ProtoField[] = [];
  graph.forEach((field, index) => {
    out.push(...(before.get(index) ?? []), replaced.get(index) ?? field);
  });
  return { graph: out, layers: before.size };
}
