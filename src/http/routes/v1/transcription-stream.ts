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
 * The deltas joined are the final text. The status is committed with the first event: until
 * then (model lookup, undecodable audio, a bad language) errors are plain JSON. A failure after
 * it is logged and the connection cut, as headers are gone. A client that hangs up cancels the
 * transcription through the request's signal.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { EncodedAudio, TranscribeOptions, Transcriber, TranscriptSegment } from '../../../inference/types.js';
import { requestSignal } from '../../request-signal.js';

const TranscriptTextDelta = Type.Object(
  { type: Type.Literal('transcript.text.delta'), delta: Type.String({ description: 'The next piece of the transcript text.' }) },
  { $id: 'TranscriptTextDelta' },
);
const TranscriptTextDone = Type.Object(
  { type: Type.Literal('transcript.text.done'), text: Type.String({ description: 'The whole transcript text.' }) },
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

type TranscriptEvent = { type: 'transcript.text.delta'; delta: string } | { type: 'transcript.text.done'; text: string };

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
      const text = pending
        .shift()!
        .map((segment) => segment.text)
        .join('');
      const delta = sent === '' ? text.trimStart() : text;
      if (delta === '') continue;
      sent += delta;
      yield { type: 'transcript.text.delta', delta };
    }
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  const { text } = await transcript;
  // Audio of one window reports no segments on the way: its text is one delta.
  if (sent === '' && text !== '') yield { type: 'transcript.text.delta', delta: text };
  yield { type: 'transcript.text.done', text };
}
