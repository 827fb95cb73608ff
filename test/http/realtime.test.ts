/**
 * /v1/realtime?intent=transcription over a real WebSocket: the key at the upgrade, the bounds,
 * the beta event protocol (`transcription_session.*`, as the beta SDKs speak it), and (with
 * `npm run test-models`) live audio transcribed by whisper-tiny.en. The GA protocol:
 * realtime-ga.test.ts; the official SDKs: realtime-sdk.slow.test.ts.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { createKeyStore } from '../../src/auth/key-store.js';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import type { Engine } from '../../src/inference/engine.js';
import { pcm16At24k } from '../helpers/live-speech.js';
import { sleep, until } from '../helpers/until.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { connect, listen, refused, stopListening, withBetaKey, type ServerEvent } from '../helpers/realtime-client.js';
import { createTestApp, TEST_API_KEY, type TestApp, type TestAppOptions } from '../helpers/test-app.js';

const withKey = withBetaKey();

describe('realtime transcription sessions (WebSocket)', () => {
  let app: TestApp;
  let server: Server;
  let base: string;

  async function start(options: TestAppOptions = {}): Promise<void> {
    app = await createTestApp(options);
    ({ server, url: base } = await listen(app));
  }
  afterEach(async () => {
    await stopListening(app, server);
  });

  it('needs a key on the upgrade, by header or by subprotocol, under every /v1 spelling', async () => {
    await start();
    const noKey = await refused(`${base}/v1/realtime?intent=transcription`);
    expect(noKey.status).to.equal(401);
    expect(JSON.parse(noKey.body).error.code).to.equal('unauthorized');
    expect(noKey.headers['www-authenticate']).to.match(/^Bearer/);
    expect((await refused(`${base}/v1/realtime?intent=transcription`, { headers: { Authorization: 'Bearer wrong-key-0123456789' } })).status).to.equal(401);
    for (const spelling of ['/V1/realtime', '/v1//realtime', '/%76%31/realtime', '/users/../v1/realtime']) {
      expect((await refused(`${base}${spelling}?intent=transcription`)).status, spelling).to.equal(401);
    }
    const byProtocol = await connect(`${base}/v1/realtime?intent=transcription`, {
      protocols: ['realtime', `openai-insecure-api-key.${TEST_API_KEY}`, 'openai-beta.realtime-v1'],
    });
    expect(byProtocol.ws.protocol).to.equal('realtime');
    expect((await byProtocol.next('transcription_session.created')).session).to.include({ object: 'realtime.transcription_session' });
    byProtocol.ws.close();
  });

  it('refuses other paths and intents with the API error body', async () => {
    await start();
    const elsewhere = await refused(`${base}/v1/models`, withKey);
    expect(elsewhere.status).to.equal(404);
    expect(JSON.parse(elsewhere.body).error.code).to.equal('not_found');
    const intent = await refused(`${base}/v1/realtime`, withKey);
    expect(intent.status).to.equal(400);
    expect(JSON.parse(intent.body).error.message).to.match(/intent=transcription/);
    expect((await refused(`${base}/users`)).status).to.equal(404);
  });

  it('drops a ?model= no request could use, and says so in an error event naming the parameter', async () => {
    await start();
    // A browser cannot read why an upgrade was refused: the session opens and tells it instead.
    const client = await connect(`${base}/v1/realtime?intent=transcription&model=gpt-9-transcribe`, withKey);
    const created = await client.next('transcription_session.created');
    expect(created.session).to.have.property('input_audio_transcription').that.does.not.have.property('model');
    const error = (await client.next('error')).error as Record<string, unknown>;
    expect(error).to.include({ code: 'model_not_found', param: 'model', event_id: null });
    expect(error.message).to.include('"gpt-9-transcribe"');
    expect(client.events.map((event) => event.type)).to.deep.equal(['transcription_session.created', 'error']);
    client.ws.close();
  });

  it('answers bad events with error events and keeps the session open', async () => {
    await start();
    const client = await connect(`${base}/v1/realtime?intent=transcription`, withKey);
    await client.next('transcription_session.created');
    client.ws.send('not json');
    expect(((await client.next('error')).error as { code: string }).code).to.equal('invalid_json');
    let from = client.events.length;
    client.send({ type: 'response.create', event_id: 'e1' });
    const unknown = (await client.next('error', from)).error as { code: string; event_id: string };
    expect(unknown).to.include({ code: 'unknown_event', event_id: 'e1' });
    from = client.events.length;
    client.send({ type: 'transcription_session.update', session: { turn_detection: { type: 'server_vad', threshold: 7 } } });
    expect(((await client.next('error', from)).error as { message: string }).message).to.equal('"session.turn_detection.threshold" must be <= 0.95');
    from = client.events.length;
    client.send({ type: 'input_audio_buffer.commit', event_id: 'c1' });
    expect((await client.next('error', from)).error).to.include({ code: 'input_audio_buffer_commit_empty', event_id: 'c1' });
    from = client.events.length;
    // A model that does not exist refuses the whole update, naming the field.
    client.send({ type: 'transcription_session.update', event_id: 'u1', session: { turn_detection: null, input_audio_transcription: { model: 'whisper-x' } } });
    expect((await client.next('error', from)).error).to.include({
      code: 'model_not_found',
      param: 'session.input_audio_transcription.model',
      event_id: 'u1',
    });
    from = client.events.length;
    client.send({ type: 'transcription_session.update', session: { turn_detection: null, input_audio_transcription: { language: 'en' } } });
    const updated = await client.next('transcription_session.updated', from);
    expect(updated.session).to.deep.include({ input_audio_transcription: { language: 'en', prompt: '' } });
    expect(updated.session).to.not.have.property('turn_detection');
    client.ws.close();
  });

  it('caps open sessions with a close reason, closes idle sessions, and bounds message size', async () => {
    await start({
      limits: {
        realtime: {
          ...DEFAULT_LIMITS.realtime,
          maxSessions: 1,
          maxMessageBytes: 4096,
          maxBufferSeconds: 1,
          maxTurnSeconds: 30,
          maxPendingItems: 4,
          idleMs: 300,
        },
      },
    });
    const first = await connect(`${base}/v1/realtime?intent=transcription`, withKey);
    const second = await connect(`${base}/v1/realtime?intent=transcription`, withKey);
    const refusedSession = await second.closed;
    expect(refusedSession.code).to.equal(1013);
    expect(refusedSession.reason).to.match(/Too many realtime sessions/);
    const idle = await first.closed;
    expect(idle.reason).to.match(/No events for 0.3 s/);

    const big = await connect(`${base}/v1/realtime?intent=transcription`, withKey);
    big.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(8192) });
    expect((await big.closed).code).to.equal(1009);
  });

  it("counts each turn as a request of the session's key: past its per-minute limit a turn fails rate_limited", async () => {
    // A transcriber that answers at once isolates the session's accounting from any model.
    const heard: Engine<'speech-to-text'> = {
      tasks: ['speech-to-text'],
      isInstalled: async () => true,
      load: async () => ({ transcribe: async () => ({ text: 'heard', duration: 1 }), dispose: async () => {} }),
    };
    await start({ manifest: { models: [{ id: 'heard', task: 'speech-to-text', engine: 'heard', description: 'test', license: 'mit' }] }, engines: { heard } });
    // Two requests a minute: the upgrade is one, the first turn the other.
    const { key } = await createKeyStore(app.db, { staticKeys: [] }).create('live', { rpm: 2 });
    const client = await connect(`${base}/v1/realtime?intent=transcription&model=heard`, { headers: { Authorization: `Bearer ${key}` } });
    client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
    await client.next('transcription_session.updated');
    const turn = async () => {
      const from = client.events.length;
      client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(24_000).toString('base64') });
      client.send({ type: 'input_audio_buffer.commit' });
      const committed = await client.next('input_audio_buffer.committed', from);
      const outcome = await new Promise<ServerEvent>((resolve) => {
        const check = () => {
          const done = client.events.slice(from).find((event) => event.item_id === committed.item_id && /\.(completed|failed)$/.test(event.type));
          if (done) resolve(done);
          else setTimeout(check, 10);
        };
        check();
      });
      return outcome;
    };
    expect(await turn()).to.include({ type: 'conversation.item.input_audio_transcription.completed', transcript: 'heard' });
    const refused = await turn();
    expect(refused.type).to.equal('conversation.item.input_audio_transcription.failed');
    expect(refused.error).to.include({ code: 'rate_limited' });
    client.ws.close();
  });

  it('refuses audio over the buffer bound when the client commits by hand', async () => {
    await start({
      limits: {
        realtime: {
          ...DEFAULT_LIMITS.realtime,
          maxSessions: 8,
          maxMessageBytes: 1 << 20,
          maxBufferSeconds: 1,
          maxTurnSeconds: 30,
          maxPendingItems: 4,
          idleMs: 10_000,
        },
      },
    });
    const client = await connect(`${base}/v1/realtime?intent=transcription`, withKey);
    client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
    await client.next('transcription_session.updated');
    const secondOfAudio = Buffer.alloc(24_000 * 2).toString('base64');
    client.send({ type: 'input_audio_buffer.append', audio: secondOfAudio });
    client.send({ type: 'input_audio_buffer.append', audio: secondOfAudio, event_id: 'too-much' });
    expect((await client.next('error')).error).to.include({ code: 'payload_too_large', event_id: 'too-much' });
    client.ws.close();
  });
});

describe('realtime transcription with the real whisper-tiny.en', () => {
  const whisper = realModel('whisper-tiny.en');
  const vad = realModel('silero-vad-v6');
  const vadEntries = vad.installed ? [vad.entry!] : [];
  let app: TestApp;
  let server: Server;
  let base: string;

  before(async function () {
    // Real weights are not committed; `npm run test-models` installs them.
    if (!whisper.installed) this.skip();
    app = await createTestApp({ manifest: { models: [whisper.entry!, ...vadEntries] }, modelsDir: REAL_MODELS_DIR });
    ({ server, url: base } = await listen(app));
  });
  after(async () => {
    await stopListening(app, server);
  });

  it('transcribes audio streamed faster than real time and committed by the client', async function () {
    this.timeout(60_000);
    const client = await connect(`${base}/v1/realtime?intent=transcription&model=whisper-tiny.en`, withKey);
    client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
    await client.next('transcription_session.updated');
    const pcm = await pcm16At24k('en_jfk.wav');
    // 100-ms appends (4,800 bytes), as fast as the socket takes them.
    for (let at = 0; at < pcm.length; at += 4_800) client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 4_800).toString('base64') });
    client.send({ type: 'input_audio_buffer.commit' });
    const committed = await client.next('input_audio_buffer.committed');
    const completed = await client.next('conversation.item.input_audio_transcription.completed');
    expect(completed.item_id).to.equal(committed.item_id);
    expect(String(completed.transcript).toLowerCase()).to.include('ask not what your country can do for you');
    const delta = client.events.find((event) => event.type === 'conversation.item.input_audio_transcription.delta');
    expect(delta?.item_id).to.equal(committed.item_id);
    client.ws.close();
  });

  it('cuts turns with server VAD (Silero) from audio streamed in 100-ms appends, and transcribes each', async function () {
    if (!vad.installed) this.skip();
    this.timeout(90_000);
    const client = await connect(`${base}/v1/realtime?intent=transcription&model=whisper-tiny.en`, withKey);
    await client.next('transcription_session.created');
    const speech = await pcm16At24k('en_jfk.wav');
    const silence = Buffer.alloc(24_000 * 2 * 1.5);
    // Two utterances with 1.5 s of silence after each, in 100-ms appends at five times real-time
    // pace: turns are cut on the audio's own clock, so a faster sender only makes the test shorter.
    const stream = Buffer.concat([silence.subarray(0, 48_000), speech, silence, speech, silence]);
    for (let at = 0; at < stream.length; at += 4_800) {
      client.send({ type: 'input_audio_buffer.append', audio: stream.subarray(at, at + 4_800).toString('base64') });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const count = (type: string) => client.events.filter((event) => event.type === type).length;
    const heard = () =>
      client.events
        .filter((event) => event.type === 'conversation.item.input_audio_transcription.completed')
        .map((event) => String(event.transcript))
        .join(' ')
        .toLowerCase()
        .replace(/[^a-z ]/g, '');
    // The server works through the audio behind the sender: wait until every turn that started has
    // stopped and has its transcript, and both utterances' words are in (the last turn ends on the
    // stream's closing 1.5 s of silence).
    const allTranscribed = () =>
      count('input_audio_buffer.speech_started') >= 2 &&
      count('input_audio_buffer.speech_stopped') === count('input_audio_buffer.speech_started') &&
      count('conversation.item.input_audio_transcription.completed') === count('input_audio_buffer.speech_started') &&
      (heard().match(/ask not what your country can do for you/g)?.length ?? 0) >= 2;
    // …and still so half a second later (no turn was about to start).
    do await until(allTranscribed, 'every turn transcribed', 60_000, 50);
    while (!(await sleep(500).then(allTranscribed)));
    // Every turn: started → stopped → committed → completed, under one item id, in order.
    const turns = client.events.filter((event) => event.type === 'input_audio_buffer.speech_started');
    expect(turns.length).to.be.within(2, 8);
    for (const turn of turns) {
      const of = (type: string) => client.events.findIndex((event) => event.type === type && event.item_id === turn.item_id);
      const order = [
        'input_audio_buffer.speech_started',
        'input_audio_buffer.speech_stopped',
        'input_audio_buffer.committed',
        'conversation.item.input_audio_transcription.completed',
      ].map(of);
      expect(
        order.every((index, i) => index >= 0 && (i === 0 || index > order[i - 1]!)),
        JSON.stringify(order),
      ).to.equal(true);
    }
    const first = turns[0]!;
    // Speech begins after the first second of silence (within a frame or two, plus the clip's own lead-in).
    expect(first.audio_start_ms).to.be.within(1_000, 1_700);
    // Whatever the turns, the words of both utterances all arrive, in order.
    expect(heard().match(/ask not what your country can do for you/g)?.length).to.equal(2);
    client.ws.close();
  });
});
