/**
 * What an `input_audio_buffer.append` may carry: strict base64 (base64-audio.ts). Garbage gets
 * an `error` event naming `audio` and the event, and none of it reaches the buffer (a commit
 * right after finds it empty); the session goes on, and valid audio is still taken. A real
 * WebSocket to a real app; no model is needed (the client commits, nothing is transcribed).
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { connect, listen, stopListening, withKey, type RealtimeClient } from '../helpers/realtime-client.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** 100 ms of PCM16 at 24 kHz: the least a commit takes. */
const PCM_100_MS = Buffer.alloc(4_800, 0x01);

interface ErrorBody {
  type: string;
  code: string;
  message: string;
  param: string | null;
  event_id: string | null;
}

describe('realtime appends that are not base64 audio', () => {
  let app: TestApp;
  let server: Server;
  let client: RealtimeClient;

  before(async () => {
    app = await createTestApp();
    let url: string;
    ({ server, url } = await listen(app));
    client = await connect(`${url}/v1/realtime?intent=transcription`, withKey());
    await client.next('session.created');
    client.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null } } } });
    await client.next('session.updated');
  });
  after(async () => {
    client?.ws.close();
    await stopListening(app, server);
  });

  /** The error event answering an append of `audio`. */
  async function refusedAppend(audio: string, eventId: string): Promise<ErrorBody> {
    const from = client.events.length;
    client.send({ type: 'input_audio_buffer.append', event_id: eventId, audio });
    return (await client.next('error', from)).error as ErrorBody;
  }

  /** A commit answers how much audio the buffer holds. */
  async function commit(eventId: string) {
    const from = client.events.length;
    client.send({ type: 'input_audio_buffer.commit', event_id: eventId });
    return Promise.race([client.next('error', from), client.next('input_audio_buffer.committed', from)]);
  }

  it('answers each with an OpenAI-shaped error event naming `audio` and the event, and buffers nothing of it', async () => {
    const cases: [string, RegExp][] = [
      ['!!!!', /^"audio" is not base64: character 1 is "!"/],
      ['data:audio/pcm;base64,AAAAAAAA', /^"audio" is a data: URL; send only the base64 after its comma$/],
      [PCM_100_MS.toString('hex'), /^"audio" is hexadecimal, not base64/],
      ['deadbeefcafe0123', /^"audio" is hexadecimal, not base64/],
      ['0a1b2c', /^"audio" is 6 characters long, not a multiple of 4/],
      ['AAAA AAAA', /character 5 is " "/],
      ['AAAA\nAAAA', /character 5 is "\\n"/],
      ['AA-_', /character 3 is "-"/],
      ['AA=A', /padding before its end/],
      ['A===', /padding before its end/],
      ['AQID', /^"audio" must be whole 16-bit samples \(an even number of bytes\); it decodes to 3$/],
    ];
    for (const [index, [audio, message]] of cases.entries()) {
      const error = await refusedAppend(audio, `bad-${index}`);
      expect(error, audio.slice(0, 40)).to.deep.include({ type: 'invalid_request_error', code: 'invalid_request', param: 'audio', event_id: `bad-${index}` });
      expect(error.message, audio.slice(0, 40)).to.match(message);
    }
    const empty = await commit('c-empty');
    expect(empty.type).to.equal('error');
    expect(empty.error).to.deep.include({ code: 'input_audio_buffer_commit_empty', event_id: 'c-empty' });
    expect((empty.error as ErrorBody).message).to.match(/^The buffer holds 0 ms of audio/);
  });

  it('refuses a lone surrogate in a text field, naming it as `param`', async () => {
    const from = client.events.length;
    client.ws.send(
      '{"type": "session.update", "event_id": "u1", "session": {"type": "transcription", "audio": {"input": {"transcription": {"prompt": "Ann \\ud800"}}}}}',
    );
    const error = (await client.next('error', from)).error as ErrorBody;
    expect(error).to.deep.include({ code: 'invalid_request', param: 'session.audio.input.transcription.prompt', event_id: 'u1' });
    expect(error.message).to.equal('"session.audio.input.transcription.prompt" is not valid Unicode: it contains the unpaired surrogate U+D800');
  });

  it('takes valid appends after invalid ones, padded or not', async () => {
    await refusedAppend('!!!!', 'bad-again');
    const from = client.events.length;
    client.send({ type: 'input_audio_buffer.append', event_id: 'ok-1', audio: PCM_100_MS.subarray(0, 4_798).toString('base64') });
    client.send({ type: 'input_audio_buffer.append', event_id: 'ok-2', audio: PCM_100_MS.subarray(0, 2).toString('base64') });
    // The resampler holds back a few samples, so a second 100 ms makes sure of the minimum.
    client.send({ type: 'input_audio_buffer.append', event_id: 'ok-3', audio: PCM_100_MS.toString('base64') });
    const committed = await commit('c-full');
    expect(committed.type, JSON.stringify(committed)).to.equal('input_audio_buffer.committed');
    expect(client.events.slice(from).filter((event) => event.type === 'error')).to.deep.equal([]);
  });
});
