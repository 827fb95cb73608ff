/**
 * The rewritten decoder (graph/rewritten-decoder.ts) as transformers.js's pipeline calls a
 * decoder_model_merged session, so that the model's own session can be released and the decoder's
 * weights held once: optimum's inputs (no `shared.*`, no `logits_from`), and `present.N.decoder.*`
 * outputs, each the past with the run's step positions appended (what the original graph's Concat
 * made), in place of the `step.N.decoder.*` the rewritten graph gives.
 */
import { arrayLike, type OrtTensor, tensorLike, type TypedArray } from '../../ort-tensor.js';
import type { RewrittenSession } from '../graph/rewritten-decoder.js';
import { type AsrPipelineParts, modelWithSessions, rebuiltAsrPipeline } from '../whisper-pipeline.js';
import {
  INPUT_IDS,
  isSelfAttentionCache,
  LOGITS_FROM,
  PAST_PREFIX,
  pastInputName,
  PRESENT_PREFIX,
  SHARED_PREFIX,
  STEP_PREFIX,
} from '../graph/rewrite-contract.js';

/** The session transformers.js's model calls (its `inputNames`, `inputMetadata` and `run`). */
export type PipelineDecoderSession = Omit<RewrittenSession, 'groupsCrossRows' | 'broadcastsCrossRows'>;

export function pipelineDecoderSession(session: RewrittenSession): PipelineDecoderSession {
  const ours = (name: string) => name.startsWith(SHARED_PREFIX) || name === LOGITS_FROM;
  const present = (name: string) => (isSelfAttentionCache(name, STEP_PREFIX) ? name.replace(STEP_PREFIX, PRESENT_PREFIX) : name);
  const step = (name: string) => (isSelfAttentionCache(name, PRESENT_PREFIX) ? name.replace(PRESENT_PREFIX, STEP_PREFIX) : name);
  return {
    inputNames: session.inputNames.filter((name) => !ours(name)),
    inputMetadata: session.inputMetadata.filter(({ name }) => !ours(name)),
    outputNames: session.outputNames.map(present),
    release: () => session.release(),
    run: async (feeds, fetches, options) => {
      const given = feeds as Record<string, OrtTensor>;
      const like = given[INPUT_IDS]!;
      const all: Record<string, OrtTensor> = { ...given };
      for (const name of session.inputNames) {
        if (name === LOGITS_FROM) all[name] = tensorLike(like, BigInt64Array.of(0n), [1]);
        else if (name.startsWith(SHARED_PREFIX)) {
          // No positions shared by every row: one empty row, which broadcasts.
          const past = given[name.replace(SHARED_PREFIX, PAST_PREFIX)]!;
          all[name] = tensorLike(past, arrayLike(past.data as TypedArray, 0), [1, past.dims[1]!, 0, past.dims[3]!]);
        }
      }
      const outputs = await session.run(all, fetches?.map(step), options);
      const answer: Record<string, OrtTensor> = {};
      for (const [name, tensor] of Object.entries(outputs)) {
        const past = isSelfAttentionCache(name, STEP_PREFIX) ? given[pastInputName(name)] : undefined;
        answer[present(name)] = past ? appended(past, tensor) : tensor;
      }
      return answer;
    },
  };
}

/** `past` [rows, heads, length, size] with `step`'s positions [rows, heads, added, size] after each row's and head's. */
function appended(past: OrtTensor, step: OrtTensor): OrtTensor {
  const [rows, heads, length, size] = past.dims as [number, number, number, number];
  if (length === 0) return step;
  const added = step.dims[2]!;
  const from = past.data as TypedArray;
  const fresh = step.data as TypedArray;
  const grown = length + added;
  const out = arrayLike(from, rows * heads * grown * size);
  for (let block = 0; block < rows * heads; block++) {
    out.set(from.subarray(block * length * size, (block + 1) * length * size) as never, block * grown * size);
    out.set(fresh.subarray(block * added * size, (block + 1) * added * size) as never, block * grown * size + length * size);
  }
  return tensorLike(past, out, [rows, heads, grown, size]);
}

/**
 * `asr` over the rewritten decoder (transformers.js's calls through pipelineDecoderSession), the
 * model's own decoder session released: the decoder's weights are held once. `asr` is not to be
 * used afterwards.
 */
export async function withRewrittenDecoder<P extends AsrPipelineParts>(asr: P, session: RewrittenSession): Promise<P> {
  const original = asr.model.sessions.decoder_model_merged as { release?(): Promise<void> } | undefined;
  const moved = rebuiltAsrPipeline(asr, {
    model: modelWithSessions(asr.model, { ...asr.model.sessions, decoder_model_merged: pipelineDecoderSession(session) }),
  });
  await original?.release?.();
  return moved;
}
