/**
 * Whether a Whisper decoder graph takes one row of cross-attention cache for all of a window's
 * rows (a beam search's or best-of's group), read from the graph's structure when the model
 * loads, never learnt from a failed run. It does when the cache inputs reach only nodes that
 * broadcast the batch axis: Transpose and elementwise ones (a key scaled by Mul in older exports)
 * pass its one row on, MatMul broadcasts it over the query's rows, and Shape only reads it
 * (grouped-cross-attention.ts). A node that fixes the number of rows (a Reshape by the batch
 * size, a Concat, a fused attention) or any other needs the rows repeated to the group's size
 * (window-search.ts).
 */
import { join } from 'node:path';
import { DTYPE_SUFFIX, DTYPES } from '../../dtype.js';
import type { Dtype } from '../asr-options.js';
import { ATTRIBUTE_GRAPH, GRAPH_INPUT, GRAPH_NODE, MODEL_GRAPH, NODE_ATTRIBUTE, type GraphNode, graphNode, valueInfoName } from './onnx-graph-fields.js';
import { readFields, type ProtoField } from './protobuf-fields.js';
import { isCrossAttentionCache, PAST_PREFIX } from './rewrite-contract.js';

export interface CrossRowsSupport {
  broadcasts: boolean;
  /** Why, for the line the worker logs at load. */
  reason: string;
}

/** Nodes the cross-attention cache may pass through and still broadcast (onnx's elementwise ops broadcast as numpy does). */
const PASSES_ROWS = new Set(['Transpose', 'Mul', 'Div', 'Add', 'Sub', 'Cast']);
/** Nodes that read the cache's rows without fixing their number. */
const BROADCASTS = new Set(['MatMul', 'Shape']);

export function crossRowsSupport(model: Uint8Array): CrossRowsSupport {
  const graph = readFields(model).find((field) => field.field === MODEL_GRAPH && field.wire === 2);
  if (graph?.wire !== 2) return { broadcasts: false, reason: 'the file holds no graph' };
  const fields = readFields(graph.value);
  const inputs = fields
    .filter((field) => field.field === GRAPH_INPUT && field.wire === 2)
    .map((field) => valueInfoName(field.value as Uint8Array))
    .filter((name) => isCrossAttentionCache(name, PAST_PREFIX));
  if (inputs.length === 0) return { broadcasts: false, reason: 'no past_key_values.N.encoder.* input' };
  const readers = new Map<string, GraphNode[]>();
  for (const node of nodesWithin(fields)) {
    for (const input of node.inputs) readers.set(input, [...(readers.get(input) ?? []), node]);
  }
  const pending = [...inputs];
  const seen = new Set<string>();
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    for (const node of readers.get(name) ?? []) {
      seen.add(node.opType);
      if (PASSES_ROWS.has(node.opType)) pending.push(...node.outputs);
      else if (!BROADCASTS.has(node.opType)) {
        return { broadcasts: false, reason: `${node.opType} node ${node.name || '(unnamed)'} reads the cross-attention cache (${name}) by its rows` };
      }
    }
  }
  const reached = [...seen].sort().join(', ');
  return { broadcasts: true, reason: `its ${inputs.length} cross-attention cache inputs reach only ${reached} nodes, which broadcast the batch axis` };
}

/** The decoder's file in the transformers.js layout, or undefined for a dtype we cannot place. */
export function decoderFile(modelDir: string, dtype: Dtype): string | undefined {
  const chosen = typeof dtype === 'string' ? dtype : (dtype.decoder_model_merged ?? 'fp32');
  if (!(DTYPES as readonly string[]).includes(chosen)) return undefined;
  return join(modelDir, 'onnx', `decoder_model_merged${DTYPE_SUFFIX[chosen as (typeof DTYPES)[number]]}.onnx`);
}

/** Every node of a graph and of the graphs its nodes hold (an If's branches), which read the outer graph's names. */
function* nodesWithin(graph: readonly ProtoField[]): Generator<GraphNode> {
  for (const field of graph) {
    if (field.field !== GRAPH_NODE || field.wire !== 2) continue;
    const node = graphNode(field.value);
    yield node;
    for (const nodeField of node.fields) {
      if (nodeField.field !== NODE_ATTRIBUTE || nodeField.wire !== 2) continue;
      for (const attribute of readFields(nodeField.value)) {
        if (attribute.field === ATTRIBUTE_GRAPH && attribute.wire === 2) yield* nodesWithin(readFields(attribute.value));
      }
    }
  }
}
