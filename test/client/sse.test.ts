/** The event-stream reader, byte by byte, and how transcribeStream ends: done, cut off, aborted, or left early. */
import { expect } from 'chai';
import { InferenceClient, InferenceError } from '../../src/client/index.js';
import { jsonEvents } from '../../src/client/sse.js';
import { rejection } from '../helpers/rejection.js';

/** A body that delivers `text` in chunks of `size` bytes (1: every multi-byte character split), then optionally fails. */
function body(text: string, size: number, failAtEnd?: Error): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return failAtEnd ? controller.error(failAtEnd) : controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const STREAM =
  'data: {"type":"transcript.text.delta","delta":"Grüße, "}\n\ndata: {"type":"transcript.text.delta","delta":"😀 world"}\n\ndata: {"type":"transcript.text.done","text":"Grüße, 😀 world"}\n\n';
const EVENTS = [
  { type: 'transcript.text.delta', delta: 'Grüße, ' },
  { type: 'transcript.text.delta', delta: '😀 world' },
  { type: 'transcript.text.done', text: 'Grüße, 😀 world' },
];

describe('client: server-sent events', () => {
  describe('jsonEvents', () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      it(`reads the same events from chunks of ${size} byte(s)`, async () => {
        expect(await collect(jsonEvents(body(STREAM, size)))).to.deep.equal(EVENTS);
      });
    }

    it('handles CRLF and CR line ends, comments, other fields and multi-line data', async () => {
      const text = ': keep-alive\r\nevent: x\r\nid: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata:{"b":2}\r\rdata: {"c":3}\n\n';
      for (const size of [1, 4, 100]) expect(await collect(jsonEvents(body(text, size)))).to.deep.equal([{ a: 1 }, { b: 2 }, { c: 3 }]);
    });

    it('refuses an event longer than its bound instead of buffering without end', async () => {
      const endless = `data: "${'x'.repeat(5000)}`;
      const error = await rejection(collect(jsonEvents(body(endless, 100), 1000)));
      expect(error.message).to.match(/longer than 1000 characters/);
      expect(await collect(jsonEvents(body(`data: "${'x'.repeat(900)}"\n\n`.repeat(3), 100), 1000))).to.have.length(3);
    });

    it('drops a last event that never got its blank line (the format says so)', async () => {
      expect(await collect(jsonEvents(body('data: {"a":1}\n\ndata: {"b":2}\n', 5)))).to.deep.equal([{ a: 1 }]);
    });
  });

  describe('transcribeStream endings (stub fetch)', () => {
    const clientAnswering = (make: () => ReadableStream<Uint8Array>) => {
      const state = { cancelled: false };
      const fetcher: typeof fetch = async () => {
        const stream = make();
        const watched = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const reader = stream.getReader();
            const { value, done } = await reader.read().finally(() => reader.releaseLock());
            if (done) controller.close();
            else controller.enqueue(value);
          },
          cancel() {
            state.cancelled = true;
          },
        });
        return new Response(watched, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': 'r-9' } });
      };
      return { state, client: new InferenceClient({ baseUrl: 'http://server.test', fetch: fetcher }) };
    };
    const input = { model: 'm', file: new Uint8Array([1, 2, 3]) };

    it('yields every event through done', async () => {
      const { client } = clientAnswering(() => body(STREAM, 9));
      expect(await collect(client.transcribeStream(input))).to.deep.equal(EVENTS);
    });

    it('an answer that ends before done throws stream_interrupted after the events it had', async () => {
      const { client } = clientAnswering(() => body(STREAM.slice(0, STREAM.indexOf('data: {"type":"transcript.text.done"')), 9));
      const seen: unknown[] = [];
      const error = await rejection(
        (async () => {
          for await (const event of client.transcribeStream(input)) seen.push(event);
        })(),
      );
      expect(error).to.be.instanceOf(InferenceError).and.include({ status: 200, code: 'stream_interrupted', requestId: 'r-9' });
      expect(seen).to.have.length(2);
    });

    it('a connection cut mid-answer throws stream_interrupted', async () => {
      const { client } = clientAnswering(() => body(STREAM.slice(0, 60), 9, new TypeError('terminated')));
      const error = await rejection(collect(client.transcribeStream(input)));
      expect(error).to.include({ code: 'stream_interrupted' });
      expect(error.message).to.match(/terminated/);
    });

    it('leaving the loop early cancels the answer (the server then stops transcribing)', async () => {
      const { client, state } = clientAnswering(() => body(STREAM, 9));
      for await (const event of client.transcribeStream(input)) {
        expect(event.type).to.equal('transcript.text.delta');
        break;
      }
      expect(state.cancelled).to.equal(true);
    });
  });
});
