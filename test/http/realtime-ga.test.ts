/**
 * The GA protocol of /v1/realtime?intent=transcription (`session.update` with a transcription
 * session, as today's SDKs send it) over a real WebSocket with raw events: the session object,
 * the validation of its fields, a turn's item events, G.711 audio, and a session that moves
 * between the beta and GA shapes. A transcriber that answers at once (with the number of 16-kHz
 * samples it got) isolates the protocol from any model; with `npm run test-models`,
 * whisper-tiny.en hears telephone audio. The official SDKs: realtime-sdk.slow.test.ts.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { muLawAt8k } from '../helpers/live-speech.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { connect, listen, type RealtimeClient, type ServerEvent, stopListening, withBetaKey, withKey } from '../helpers/realtime-client.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const SESSION = '/v1/realtime?intent=transcription';

/** Hears how many 16-kHz samples a turn held: the audio path is checked without a model. */
const COUNTING: Engine<'speech-to-text'> = {
  tasks: ['speech-to-text'],
  isInstalled: async () => true,
  load: async () => ({
    transcribe: async (audio) => ({ text: `heard ${'samples' in audio ? audio.samples.length : 0}`, duration: 1 }),
    dispose: async () => {},
  }),
};

const MANIFEST: Manifest = {
  models: [{ id: 'heard', task: 'speech-to-text', engine: 'counting', description: 'test', license: 'mit' }],
  aliases: { 'whisper-1': { task: 'speech-to-text', prefer: ['heard'] } },
};

/** The `session.update` of the issue report, as openai-node 7 and openai-python 3 send it. */
const SDK_UPDATE = {
  type: 'session.update',
  session: {
    type: 'transcription',
    audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'whisper-1', language: 'en' }, turn_detection: null } },
  },
};

const ONE_SECOND_PCM16 = Buffer.alloc(48_000).toString('base64');

/** Sends `audio` and a commit; resolves to the turn's events from its `committed` to its `.completed`. */
async function turn(client: RealtimeClient, audio: string): Promise<ServerEvent[]> {
  const from = client.events.length;
  client.send({ type: 'input_audio_buffer.append', audio });
  client.send({ type: 'input_audio_buffer.commit' });
  const committed = await client.next('input_audio_buffer.committed', from);
  const completed = await nextFor(client, 'conversation.item.input_audio_transcription.completed', committed.item_id as string, from);
  return client.events.slice(client.events.indexOf(committed), client.events.indexOf(completed) + 1);
}

async function nextFor(client: RealtimeClient, type: string, itemId: string, from: number): Promise<ServerEvent> {
  for (;;) {
    const found = client.events.slice(from).find((event) => event.type === type && event.item_id === itemId);
    if (found) return found;
    await client.next(type, client.events.length);
  }
}

async function updated(client: RealtimeClient, update: Record<string, unknown>, answer = 'session.updated'): Promise<ServerEvent> {
  const from = client.events.length;
  client.send(update);
  const event = await Promise.race([client.next(answer, from), client.next('error', from)]);
  expect(event.type, JSON.stringify(event)).to.equal(answer);
  return event;
}

const inputOf = (event: ServerEvent) => (event.session as { audio: { input: Record<string, unknown> } }).audio.input;

describe('realtime transcription sessions: the GA protocol', () => {
  let app: TestApp;
  let server: Server;
  let base: string;

  beforeEach(async () => {
    app = await createTestApp({ manifest: MANIFEST, engines: { counting: COUNTING } });
    ({ server, url: base } = await listen(app));
  });
  afterEach(async () => {
    await stopListening(app, server);
  });

  it('opens with session.created in the GA shape unless the upgrade asks for the beta protocol', async () => {
    const client = await connect(`${base}${SESSION}&model=heard`, withKey());
    const created = await client.next('session.created');
    expect(created.session).to.deep.include({ type: 'transcription', object: 'realtime.transcription_session' });
    expect(inputOf(created)).to.deep.equal({
      format: { type: 'audio/pcm', rate: 24000 },
      // Settings not set are left out (the spec types them string or object, never null).
      transcription: { model: 'heard', prompt: '' },
      turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
    });
    const { expires_at: expiresAt, id } = created.session as { expires_at: number; id: string };
    expect(id).to.match(/^sess_/);
    expect(expiresAt - Date.now() / 1000).to.be.within(3_590, 3_601);
    expect(client.count('transcription_session.created')).to.equal(0);
    client.ws.close();

    const beta = await connect(`${base}${SESSION}`, withBetaKey());
    expect((await beta.next('transcription_session.created')).session).to.include({ object: 'realtime.transcription_session', input_audio_format: 'pcm16' });
    beta.ws.close();
  });

  it('takes the session.update current SDKs send, and answers a committed turn with the GA item events', async () => {
    const client = await connect(`${base}${SESSION}`, withKey());
    const answer = await updated(client, { ...SDK_UPDATE, event_id: 'u1' });
    expect(inputOf(answer)).to.deep.include({
      format: { type: 'audio/pcm', rate: 24000 },
      transcription: { model: 'whisper-1', language: 'en', prompt: '' },
      turn_detection: null,
    });
    const first = await turn(client, ONE_SECOND_PCM16);
    const itemId = first[0]!.item_id as string;
    expect(itemId).to.match(/^item_/);
    expect(first.map((event) => event.type)).to.deep.equal([
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.done',
      'conversation.item.input_audio_transcription.delta',
      'conversation.item.input_audio_transcription.completed',
    ]);
    expect(first[0]).to.include({ previous_item_id: null });
    expect(first[1]!.item).to.deep.include({ id: itemId, type: 'message', role: 'user', content: [{ type: 'input_audio' }] });
    // One second at 16 kHz, less the few samples the resampler still holds.
    const heard = String(first[4]!.transcript);
    expect(Number(heard.split(' ')[1])).to.be.within(15_900, 16_000);
    expect(first[3]).to.include({ item_id: itemId, content_index: 0, delta: heard });
    expect(first[4]).to.include({ item_id: itemId, content_index: 0 });
    expect(first[4]!.usage).to.include({ type: 'duration' }).and.have.property('seconds').closeTo(1, 0.01);
    const second = await turn(client, ONE_SECOND_PCM16);
    expect(second[0]).to.include({ previous_item_id: itemId });
    expect(client.count('conversation.item.created')).to.equal(0);
    client.ws.close();
  });

  for (const [format, silence] of [
    ['audio/pcmu', 0xff],
    ['audio/pcma', 0xd5],
  ] as const) {
    it(`reads ${format}: 8-kHz G.711, a byte a sample, resampled to 16 kHz`, async () => {
      const client = await connect(`${base}${SESSION}&model=heard`, withKey());
      const answer = await updated(client, {
        type: 'session.update',
        session: { type: 'transcription', audio: { input: { format: { type: format }, turn_detection: null } } },
      });
      expect(inputOf(answer).format).to.deep.equal({ type: format });
      // An odd number of bytes is whole samples here.
      const [, , , , completed] = await turn(client, Buffer.alloc(8_001, silence).toString('base64'));
      const samples = Number(String(completed!.transcript).split(' ')[1]);
      expect(samples).to.be.within(15_900, 16_002);
      client.ws.close();
    });
  }

  it('serves semantic_vad with the same VAD by its eagerness, and echoes noise_reduction and include as set', async () => {
    const client = await connect(`${base}${SESSION}&model=heard`, withKey());
    const answer = await updated(client, {
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'high', create_response: true }, noise_reduction: { type: 'near_field' } } },
        include: ['item.input_audio_transcription.logprobs'],
      },
    });
    expect(inputOf(answer)).to.deep.include({ turn_detection: { type: 'semantic_vad', eagerness: 'high' }, noise_reduction: { type: 'near_field' } });
    expect(answer.session).to.deep.include({ include: ['item.input_audio_transcription.logprobs'] });
    // null turns either off again: the session leaves it out.
    const off = await updated(client, {
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { noise_reduction: null } }, include: null },
    });
    expect(inputOf(off)).to.not.have.property('noise_reduction');
    expect(off.session).to.not.have.property('include');
    client.ws.close();
  });

  it('answers what it cannot serve with error events naming the field, and the session stays open', async () => {
    const client = await connect(`${base}${SESSION}&model=heard`, withKey());
    await client.next('session.created');
    const refusal = async (event: Record<string, unknown>) => {
      const from = client.events.length;
      client.send({ ...event, event_id: 'e1' });
      const error = await client.next('error', from);
      expect(Object.keys(error).sort()).to.deep.equal(['error', 'event_id', 'type']);
      expect(error.error).to.include({ type: 'invalid_request_error', event_id: 'e1' });
      const { message, param } = error.error as { code: string; message: string; param: string | null };
      // `param` is the field the message names, as OpenAI's error events name it.
      expect(param).to.equal(/^"([^"]+)"/.exec(message)?.[1] ?? null);
      return message;
    };
    const update = (session: Record<string, unknown>) => ({ type: 'session.update', session });
    expect(await refusal(update({ audio: { input: { turn_detection: null } } }))).to.equal('"session.type" is required');
    expect(await refusal(update({ type: 'realtime', model: 'gpt-realtime' }))).to.equal('"session.type" must be one of: transcription');
    expect(await refusal(update({ type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } }))).to.equal(
      '"session.audio.input.format.rate" must be 24000',
    );
    expect(await refusal(update({ type: 'transcription', audio: { input: { format: { type: 'audio/wav' } } } }))).to.equal(
      '"session.audio.input.format.type" must be one of: audio/pcm, audio/pcmu, audio/pcma',
    );
    expect(await refusal(update({ type: 'transcription', audio: { input: { turn_detection: { type: 'server_vad', threshold: 7 } } } }))).to.equal(
      '"session.audio.input.turn_detection.threshold" must be <= 0.95',
    );
    expect(await refusal(update({ type: 'transcription', audio: { input: { noise_reduction: { type: 'studio' } } } }))).to.equal(
      '"session.audio.input.noise_reduction.type" must be one of: near_field, far_field',
    );
    expect(await refusal(update({ type: 'transcription', include: ['item.input_audio_transcription.avg_logprob'] }))).to.equal(
      '"session.include.0" must be one of: item.input_audio_transcription.logprobs',
    );
    expect(await refusal({ type: 'response.create' })).to.match(/^Unknown event type; expected one of session\.update, transcription_session\.update, /);
    expect(await refusal({ type: 'input_audio_buffer.commit' })).to.match(/commit at least 100 ms/);
    await updated(client, SDK_UPDATE);
    client.ws.close();
  });

  it('answers each update in its own shape: a GA session given a beta update speaks beta, and back', async () => {
    const client = await connect(`${base}${SESSION}&model=heard`, withKey());
    await client.next('session.created');
    const beta = await updated(client, { type: 'transcription_session.update', session: { turn_detection: null } }, 'transcription_session.updated');
    expect(beta.session).to.deep.include({ input_audio_format: 'pcm16' });
    // The beta spec types turn_detection as an object: off, it is left out.
    expect(beta.session).to.not.have.property('turn_detection');
    expect((await turn(client, ONE_SECOND_PCM16)).map((event) => event.type)).to.include('conversation.item.created');
    await updated(client, SDK_UPDATE);
    expect((await turn(client, ONE_SECOND_PCM16)).map((event) => event.type)).to.include.members(['conversation.item.added', 'conversation.item.done']);
    client.ws.close();
    const betaClient = await connect(`${base}${SESSION}&model=heard`, withBetaKey());
    await betaClient.next('transcription_session.created');
    await updated(betaClient, SDK_UPDATE);
    betaClient.ws.close();
  });
});

describe('realtime transcription, GA protocol, with the real whisper-tiny.en', () => {
  const whisper = realModel('whisper-tiny.en');
  let app: TestApp;
  let server: Server;
  let base: string;

  before(async function () {
    // Real weights are not committed; `npm run test-models` installs them.
    if (!whisper.installed) this.skip();
    app = await createTestApp({ manifest: { models: [whisper.entry!] }, modelsDir: REAL_MODELS_DIR });
    ({ server, url: base } = await listen(app));
  });
  after(async () => {
    await stopListening(app, server);
  });

  it('hears the JFK clip sent as 8-kHz µ-law (audio/pcmu), as a telephone line carries it', async function () {
    this.timeout(60_000);
    const client = await connect(`${base}${SESSION}&model=whisper-tiny.en`, withKey());
    await updated(client, {
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcmu' }, turn_detection: null } } },
    });
    const ulaw = await muLawAt8k('en_jfk.wav');
    // 100-ms appends (800 bytes), as fast as the socket takes them.
    for (let at = 0; at < ulaw.length; at += 800) client.send({ type: 'input_audio_buffer.append', audio: ulaw.subarray(at, at + 800).toString('base64') });
    client.send({ type: 'input_audio_buffer.commit' });
    const completed = await client.next('conversation.item.input_audio_transcription.completed');
    expect(String(completed.transcript).toLowerCase()).to.include('ask not what your country can do for you');
    expect((completed.usage as { seconds: number }).seconds).to.be.closeTo(ulaw.length / 8_000, 0.05);
    client.ws.close();
  });
});
