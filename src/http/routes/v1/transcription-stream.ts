/**
 * `stream=true` on the speech-to-text routes: the transcript as server-sent events, OpenAI's
 * form, each segment's text as soon as its window is decoded:
 *
 * ```
 * data: {"type":"transcript.text.delta","delta":"And so my fellow Americans,"}
 *
 * data: {"type":"transcript.text.done","text":"And so my fellow Americans, ask not …"}
 * ```
 *
 * With `include[]=logprobs` (OpenAI's route) each delta carries its text tokens' `logprobs` and
 * the done event all of them, as OpenAI's events do.
 *
 * The deltas joined are the final text. The status is committed with the first event: until
 * then (model lookup, undecodable audio, a bad language) errors are plain JSON. A failure after
 * it is logged and the connection cut, as headers are gone. A client that hangs up cancels the
 * transcription through the request's signal.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { EncodedAudio, TokenLogprob as TokenLogprobEntry, TranscribeOptions, Transcriber, TranscriptSegment } from '../../../inference/types.js';
import { requestSignal } from '../../request-signal.js';

/** OpenAI's entry of `include[]=logprobs`: one text token. */
export const TokenLogprob = Type.Object(
  {
    token: Type.String({ description: 'The token as text (U+FFFD where it holds part of a character).' }),
    logprob: Type.Number({ description: 'Its log probability.' }),
    bytes: Type.Array(Type.Integer({ minimum: 0, maximum: 255 }), { description: 'Its UTF-8 bytes.' }),
  },
  { $id: 'TokenLogprob' },
);

const TranscriptTextDelta = Type.Object(
  {
    type: Type.Literal('transcript.text.delta'),
    delta: Type.String({ description: 'The next piece of the transcript text.' }),
    logprobs: Type.Optional(Type.Array(TokenLogprob, { description: "With `include[]=logprobs`: the delta's text tokens." })),
  },
  { $id: 'TranscriptTextDelta' },
);
const TranscriptTextDone = Type.Object(
  {
    type: Type.Literal('transcript.text.done'),
    text: Type.String({ description: 'The whole transcript text.' }),
    logprobs: Type.Optional(Type.Array(TokenLogprob, { description: 'With `include[]=logprobs`: every text token of the transcript.' })),
  },
  { $id: 'TranscriptTextDone' },
);

/** The 200 of a route with `stream=true`, for its operation's `responses`. */
export const transcriptEventStream = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description: 'Server-sent events, each `data:` line one JSON event: `transcript.text.delta` events, then one `transcript.text.done`.',
    },
    itemSchema: { oneOf: [TranscriptTextDelta, TranscriptTextDone] },
  },
};

type TranscriptEvent =
  | { type: 'transcript.text.delta'; delta: string; logprobs?: TokenLogprobEntry[] }
  | { type: 'transcript.text.done'; text: string; logprobs?: TokenLogprobEntry[] };

/** Transcribes `audio` and answers with its events; resolves once the first event is ready (or rejects before it). */
export async function respondWithTranscriptEvents(ctx: Context, transcriber: Transcriber, audio: EncodedAudio, options: TranscribeOptions): Promise<void> {
  const events = transcriptEvents(transcriber, audio, { ...options, signal: requestSignal(ctx) });
  const first = await events.next();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no'); // proxies must pass each event on at once
  ctx.body = Readable.from(serialise(ctx, first, events), { objectMode: false });
}

async function* serialise(ctx: Context, first: IteratorResult<TranscriptEvent>, rest: AsyncGenerator<TranscriptEvent>): AsyncGenerator<string> {
  if (first.done) return;
  yield sse(first.value);
  try {
    for await (const event of rest) yield sse(event);
  } catch (error) {
    ctx.app.emit('error', error, ctx);
    ctx.res.destroy();
  }
}

function sse(event: TranscriptEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Deltas as the transcriber reports segments, then `done` with its final text. */
async function* transcriptEvents(transcriber: Transcriber, audio: EncodedAudio, options: TranscribeOptions): AsyncGenerator<TranscriptEvent> {
  const pending: TranscriptSegment[][] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const onSegments = (segments: TranscriptSegment[]) => {
    pending.push(segments);
    wake?.();
  };
  const transcript = transcriber.transcribe(audio, { ...options, onSegments }).finally(() => {
    finished = true;
    wake?.();
  });
  transcript.catch(() => {}); // observed below; never an unhandled rejection meanwhile
  let sent = '';
  for (;;) {
    while (pending.length > 0) {
      const segments = pending.shift()!;
      const text = segments.map((segment) => segment.text).join('');
      const delta = sent === '' ? text.trimStart() : text;
      if (delta === '') continue;
      sent += delta;
      const logprobs = segments.some((segment) => segment.logprobs) ? segments.flatMap((segment) => segment.logprobs ?? []) : undefined;
      yield { type: 'transcript.text.delta', delta, ...(logprobs ? { logprobs } : {}) };
    }
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  const { text, logprobs } = await transcript;
  const withLogprobs = logprobs ? { logprobs } : {};
  // Audio of one window reports no segments on the way: its text is one delta.
  if (sent === '' && text !== '') yield { type: 'transcript.text.delta', delta: text, ...withLogprobs };
  yield { type: 'transcript.text.done', text, ...withLogprobs };
}
