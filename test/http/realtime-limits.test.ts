/**
 * What a realtime session may cost and who may hold one, over real WebSockets: the bytes a
 * session holds unprocessed (flooded, it is paused, and past its bound closed), the key checked
 * again before every turn (revoked, expired), the key's model list at the upgrade, sessions per
 * key, the session lifetime, and the upgrade's path read as the HTTP routes read theirs. The
 * bounds and key checks that do not depend on the protocol run in both its shapes: a session
 * set up by the beta `transcription_session.update` and by the GA `session.update`.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { createKeyStore } from '../../src/auth/key-store.js';
import { DEFAULT_LIMITS, type RealtimeLimits } from '../../src/config/load-config.js';
import type { Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { rawRequest, rawUpgrade } from '../helpers/raw-http.js';
import { connect, listen, refused, resolveAfter, stopListening, withKey, type RealtimeClient, type ServerEvent } from '../helpers/realtime-client.js';
import { createTestApp, TEST_API_KEY, type TestApp, type TestAppOptions } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

const SESSION = '/v1/realtime?intent=transcription';
const MIB = 1024 * 1024;
/** One second of 24-kHz PCM16 silence, as an append carries it: 16,000 samples (64,000 bytes) once held at 16 kHz. */
const SECOND = Buffer.alloc(48_000).toString('base64');
const SECOND_HELD_BYTES = 16_000 * 4;

const PROTOCOLS = ['beta', 'ga'] as const;
type Protocol = (typeof PROTOCOLS)[number];

/** The update that makes a session commit by hand (and names another model, when given), in either protocol's shape. */
function manualUpdate(protocol: Protocol, model?: string): Record<string, unknown> {
  const transcription = model === undefined ? {} : { model };
  return protocol === 'ga'
    ? { type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null, transcription } } } }
    : { type: 'transcription_session.update', session: { turn_detection: null, input_audio_transcription: transcription } };
}
const UPDATED = { beta: 'transcription_session.updated', ga: 'session.updated' } as const;

/**
 * A speech-to-text engine that answers "heard" once the test lets it (`open`), so committed
 * turns can be kept waiting for transcription.
 */
function gatedSpeech(startOpen: boolean): { engine: Engine<'speech-to-text'>; open: () => void } {
  let open!: () => void;
  const gate = startOpen ? Promise.resolve() : new Promise<void>((resolve) => (open = resolve));
  const engine: Engine<'speech-to-text'> = {
    tasks: ['speech-to-text'],
    isInstalled: async () => true,
    load: async () => ({ transcribe: async () => (await gate, { text: 'heard', duration: 1 }), dispose: async () => {} }),
  };
  return { engine, open: () => open?.() };
}

const CLASSIFIER: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  isInstalled: async () => true,
  load: async () => ({ classify: async () => [{ label: 'ok', confidence: 1 }], dispose: async () => {} }),
};

const MANIFEST: Manifest = {
  models: [
    { id: 'heard', task: 'speech-to-text', engine: 'speech', description: 'test', license: 'mit' },
    { id: 'other-stt', task: 'speech-to-text', engine: 'speech', description: 'test', license: 'mit' },
    { id: 'sentiment', task: 'text-classification', engine: 'classes', description: 'test', license: 'mit' },
  ],
  aliases: { 'whisper-1': { task: 'speech-to-text', prefer: ['heard'] } },
};

describe('realtime sessions: bounds and key policy', () => {
  let app: TestApp;
  let server: Server;
  let base: string;
  let port: number;
  let speech: ReturnType<typeof gatedSpeech>;
  let stop: (() => Promise<void>) | undefined;

  async function start(options: { limits?: Partial<RealtimeLimits>; held?: boolean } & TestAppOptions = {}): Promise<void> {
    const { limits, held = false, ...rest } = options;
    speech = gatedSpeech(!held);
    app = await createTestApp({
      manifest: MANIFEST,
      engines: { speech: speech.engine, classes: CLASSIFIER },
      // Without `limits`, the realtime limits are the ones the environment (`env`) gives.
      ...(limits ? { limits: { realtime: { ...DEFAULT_LIMITS.realtime, ...limits } } } : {}),
      ...rest,
    });
    ({ server, url: base, port } = await listen(app));
    stop = async () => {
      speech.open();
      await stopListening(app, server);
    };
  }
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  /** A session that commits by hand, on model `heard`. */
  async function manualSession(key = TEST_API_KEY, protocol: Protocol = 'beta'): Promise<RealtimeClient> {
    const client = await connect(`${base}${SESSION}&model=heard`, withKey(key));
    client.send(manualUpdate(protocol));
    await client.next(UPDATED[protocol]);
    return client;
  }

  /** Sends `turns` turns of one second each, committed by hand, as fast as the socket takes them. */
  function sendTurns(client: RealtimeClient, turns: number): void {
    for (let i = 0; i < turns; i++) {
      client.send({ type: 'input_audio_buffer.append', audio: SECOND });
      client.send({ type: 'input_audio_buffer.commit' });
    }
  }

  /** How many turns the server committed once it stopped committing more (`quietMs` without one). */
  async function committedWhenSettled(client: RealtimeClient, quietMs = 400): Promise<number> {
    // The first append also starts the audio worker, which takes a while.
    await client.next('input_audio_buffer.committed');
    const count = () => client.count('input_audio_buffer.committed');
    let last = -1;
    while (count() !== last) {
      last = count();
      await resolveAfter(quietMs, undefined);
    }
    return last;
  }

  /** The turn's outcome: its `.completed` or `.failed` event. */
  async function turn(client: RealtimeClient): Promise<ServerEvent> {
    const from = client.events.length;
    sendTurns(client, 1);
    const committed = await client.next('input_audio_buffer.committed', from);
    for (;;) {
      const done = client.events.slice(from).find((event) => event.item_id === committed.item_id && /transcription\.(completed|failed)$/.test(event.type));
      if (done) return done;
      await resolveAfter(10, undefined);
    }
  }

  describe('the bytes a session holds unprocessed', () => {
    for (const protocol of PROTOCOLS) {
      it(`stops reading a session whose turns pile up past sessionPauseBytes, and reads on as they are transcribed (${protocol})`, async function () {
        this.timeout(20_000);
        // Turns are not what pauses it here (maxPendingItems): only the bytes they hold.
        await start({ held: true, limits: { maxPendingItems: 1000, sessionPauseBytes: 4 * SECOND_HELD_BYTES, sessionMaxBytes: 64 * MIB } });
        const client = await manualSession(TEST_API_KEY, protocol);
        sendTurns(client, 40);
        const read = await committedWhenSettled(client);
        // By the 4th turn held the bound is reached; a message or two already read may follow.
        expect(read).to.be.within(3, 8);
        // Past the bound: at most what one socket read (64 KiB) carried, and a message in hand.
        expect(app.app.realtime.stats().peakSessionBytes).to.be.below(4 * SECOND_HELD_BYTES + 64 * 1024 + 3 * (SECOND.length + 2048));
        speech.open();
        while (client.count('conversation.item.input_audio_transcription.completed') < 40) await resolveAfter(20, undefined);
        expect(client.count('input_audio_buffer.committed')).to.equal(40);
        expect(client.count('error')).to.equal(0);
        client.ws.close();
      });
    }

    it('counts all sessions together: past totalPauseBytes another session is not read either', async function () {
      this.timeout(20_000);
      await start({
        held: true,
        limits: { maxPendingItems: 1000, sessionPauseBytes: 64 * MIB, sessionMaxBytes: 64 * MIB, totalPauseBytes: 4 * SECOND_HELD_BYTES },
      });
      const first = await manualSession();
      sendTurns(first, 10);
      expect(await committedWhenSettled(first)).to.be.within(3, 8);
      const second = await manualSession();
      sendTurns(second, 10);
      expect(await committedWhenSettled(second)).to.be.within(1, 3);
      speech.open();
      for (const client of [first, second]) {
        while (client.count('conversation.item.input_audio_transcription.completed') < 10) await resolveAfter(20, undefined);
      }
      expect(app.app.realtime.stats().heldBytes).to.be.below(2 * SECOND_HELD_BYTES);
    });

    for (const protocol of PROTOCOLS) {
      it(`closes a session past sessionMaxBytes with an error event and code 1008 (${protocol})`, async function () {
        this.timeout(20_000);
        // Pausing is out of the way (a bound it never reaches), so the close bound is what holds.
        await start({ held: true, limits: { maxPendingItems: 1000, sessionPauseBytes: 1024 * MIB, sessionMaxBytes: 8 * SECOND_HELD_BYTES } });
        const client = await manualSession(TEST_API_KEY, protocol);
        sendTurns(client, 40);
        const closed = await Promise.race([client.closed, resolveAfter(5_000, undefined)]);
        expect(closed, 'the session was closed').to.deep.include({ code: 1008 });
        expect(closed!.reason).to.match(/Too much input waiting/);
        const error = client.events.find((event) => event.type === 'error')!;
        expect(error.error).to.include({ code: 'session_overloaded' });
        expect(client.count('input_audio_buffer.committed')).to.be.below(12);
        expect(app.app.realtime.stats().heldBytes, 'freed when the server closes').to.equal(0);
        // The slot, once the socket is gone.
        await until(() => app.app.realtime.stats().sessions === 0, 'the slot to be freed');
      });
    }

    it('holds a flood of 1-MiB appends, sent faster than the audio worker reads them, to its bound', async function () {
      this.timeout(60_000);
      await start({ limits: { maxMessageBytes: MIB + 1024, sessionPauseBytes: 8 * MIB, sessionMaxBytes: 32 * MIB } });
      const client = await manualSession();
      // 1 MiB of base64 is ~16 s of audio; a commit every 4 keeps the buffer under maxBufferSeconds.
      const append = JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(786_432).toString('base64') });
      for (let i = 1; i <= 48; i++) {
        client.ws.send(append);
        if (i % 4 === 0) client.send({ type: 'input_audio_buffer.commit' });
      }
      while (client.count('conversation.item.input_audio_transcription.completed') < 12) {
        expect(client.count('error'), JSON.stringify(client.events.find((event) => event.type === 'error'))).to.equal(0);
        await resolveAfter(20, undefined);
      }
      expect(app.app.realtime.stats().peakSessionBytes).to.be.within(4 * MIB, 8 * MIB + 2 * (MIB + 4096));
      client.ws.close();
    });
  });

  describe('the key, checked again before every turn', () => {
    for (const protocol of PROTOCOLS) {
      it(`ends the session once its key is revoked: the turn fails, an error event, close 1008 (${protocol})`, async () => {
        await start();
        const keys = createKeyStore(app.db, { staticKeys: [] });
        const { key, info } = await keys.create('live');
        const client = await manualSession(key, protocol);
        expect(await turn(client)).to.include({ type: 'conversation.item.input_audio_transcription.completed', transcript: 'heard' });
        await keys.revoke(String(info.id));
        const outcome = await Promise.race([turn(client), resolveAfter(5_000, undefined)]);
        expect(outcome?.type).to.equal('conversation.item.input_audio_transcription.failed');
        expect(outcome?.error).to.include({ code: 'unauthorized' });
        expect(client.events.find((event) => event.type === 'error')?.error).to.include({ code: 'unauthorized' });
        expect(await client.closed).to.deep.equal({ code: 1008, reason: 'API key revoked or expired' });
        expect(client.count('conversation.item.input_audio_transcription.completed')).to.equal(1);
      });
    }

    for (const protocol of PROTOCOLS) {
      it(`ends a session whose key is revoked between turns, while it streams without ending one (${protocol})`, async () => {
        await start({ limits: { keyCheckMs: 100 } });
        const keys = createKeyStore(app.db, { staticKeys: [] });
        const { key, info } = await keys.create('streaming');
        const client = await manualSession(key, protocol);
        client.send({ type: 'input_audio_buffer.append', audio: SECOND });
        await keys.revoke(String(info.id));
        const closed = await Promise.race([client.closed, resolveAfter(5_000, undefined)]);
        expect(closed).to.deep.equal({ code: 1008, reason: 'API key revoked or expired' });
        expect(client.events.find((event) => event.type === 'error')?.error).to.include({ code: 'unauthorized' });
        expect(client.count('input_audio_buffer.committed')).to.equal(0);
      });
    }

    it('ends the session once its key has expired', async () => {
      let now = Date.now();
      const clock = () => new Date(now);
      await start({ now: clock });
      const { key } = await createKeyStore(app.db, { staticKeys: [], now: clock }).create('short', { expiresAt: new Date(now + 60_000) });
      const client = await manualSession(key);
      expect((await turn(client)).type).to.equal('conversation.item.input_audio_transcription.completed');
      now += 61_000;
      const outcome = await Promise.race([turn(client), resolveAfter(5_000, undefined)]);
      expect(outcome?.type).to.equal('conversation.item.input_audio_transcription.failed');
      expect((await client.closed).code).to.equal(1008);
      expect(client.count('conversation.item.input_audio_transcription.completed')).to.equal(1);
    });
  });

  describe("the key's model list, at the upgrade", () => {
    const keyFor = (models: string[]) =>
      createKeyStore(app.db, { staticKeys: [] })
        .create(models.join(','), { models })
        .then(({ key }) => key);

    it('refuses a key that may use no speech-to-text model with 403 model_not_allowed', async () => {
      await start();
      const key = await keyFor(['sentiment']);
      const answer = await refused(`${base}${SESSION}`, withKey(key));
      expect(answer.status).to.equal(403);
      expect(JSON.parse(answer.body).error).to.deep.include({
        code: 'model_not_allowed',
        message: 'This API key may not use model "(any speech-to-text model)"; it may use: sentiment',
      });
      expect(app.app.realtime.stats().sessions).to.equal(0);
    });

    it('refuses a ?model= outside the list, and lets an alias on the list stand for its model', async () => {
      await start();
      const direct = await keyFor(['heard']);
      expect((await refused(`${base}${SESSION}&model=other-stt`, withKey(direct))).status).to.equal(403);
      (await connect(`${base}${SESSION}&model=heard`, withKey(direct))).ws.close();
      // The alias resolves to an allowed model, as on the HTTP routes.
      (await connect(`${base}${SESSION}&model=whisper-1`, withKey(direct))).ws.close();
      const byAlias = await keyFor(['whisper-1']);
      const client = await connect(`${base}${SESSION}&model=whisper-1`, withKey(byAlias));
      client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
      await client.next('transcription_session.updated');
      expect((await turn(client)).type).to.equal('conversation.item.input_audio_transcription.completed');
      client.ws.close();
      (await connect(`${base}${SESSION}`, withKey(byAlias))).ws.close();
      expect((await refused(`${base}${SESSION}&model=heard`, withKey(byAlias))).status).to.equal(403);
    });

    for (const protocol of PROTOCOLS) {
      it(`still checks each turn against the list when a session update names another model (${protocol})`, async () => {
        await start();
        const client = await manualSession(await keyFor(['heard']), protocol);
        client.send(manualUpdate(protocol, 'other-stt'));
        await client.next(UPDATED[protocol], client.events.length);
        const outcome = await turn(client);
        expect(outcome.type).to.equal('conversation.item.input_audio_transcription.failed');
        expect(outcome.error).to.include({ code: 'model_not_allowed' });
        client.ws.close();
      });
    }
  });

  describe('who holds the sessions', () => {
    it('caps sessions per key with 429 too_many_sessions before the upgrade; static keys count one by one', async () => {
      const otherStatic = 'other-static-key-0123456789';
      await start({ env: { API_KEYS: `${TEST_API_KEY},${otherStatic}` }, limits: { maxSessions: 8, maxSessionsPerKey: 2 } });
      const open = [await connect(`${base}${SESSION}`, withKey()), await connect(`${base}${SESSION}`, withKey())];
      const third = await refused(`${base}${SESSION}`, withKey());
      expect(third.status).to.equal(429);
      expect(JSON.parse(third.body).error).to.deep.include({ code: 'too_many_sessions' });
      expect(JSON.parse(third.body).error.message).to.match(/already holds 2 realtime session/);
      // Another key, static or stored, has slots of its own.
      open.push(await connect(`${base}${SESSION}`, withKey(otherStatic)));
      open.push(await connect(`${base}${SESSION}`, withKey((await createKeyStore(app.db, { staticKeys: [] }).create('x')).key)));
      // A session closed gives its slot back.
      open[0]!.ws.close();
      await open[0]!.closed;
      await until(() => app.app.realtime.stats().sessions === 3, 'the server to end the closed session');
      open.push(await connect(`${base}${SESSION}`, withKey()));
      expect(app.app.realtime.stats().sessions).to.equal(4);
      for (const client of open) client.ws.close();
    });

    it('takes the per-key and total caps from REALTIME_MAX_SESSIONS_PER_KEY and REALTIME_MAX_SESSIONS', async () => {
      // A laptop's single user with three caption tabs open.
      await start({ env: { REALTIME_MAX_SESSIONS: '4', REALTIME_MAX_SESSIONS_PER_KEY: '3', REALTIME_IDLE_SECONDS: '120' } });
      expect(app.config.limits.realtime).to.include({ maxSessions: 4, maxSessionsPerKey: 3, idleMs: 120_000 });
      const tabs = [
        await connect(`${base}${SESSION}`, withKey()),
        await connect(`${base}${SESSION}`, withKey()),
        await connect(`${base}${SESSION}`, withKey()),
      ];
      for (const tab of tabs) await tab.next('session.created');
      const fourth = await refused(`${base}${SESSION}`, withKey());
      expect(fourth.status).to.equal(429);
      expect(JSON.parse(fourth.body).error.message).to.match(/already holds 3 realtime session/);
      for (const tab of tabs) tab.ws.close();
    });

    it('closes a session at maxSessionSeconds however active it is, with an error event first', async () => {
      await start({ limits: { maxSessionSeconds: 0.5, idleMs: 10_000 } });
      const client = await connect(`${base}${SESSION}`, withKey());
      const keepBusy = setInterval(() => client.send({ type: 'input_audio_buffer.clear' }), 50);
      try {
        const closed = await Promise.race([client.closed, resolveAfter(3_000, undefined)]);
        expect(closed, 'the session was closed').to.deep.equal({ code: 1000, reason: 'Session lifetime of 0.5 s reached' });
        expect(client.events.find((event) => event.type === 'error')?.error).to.include({ code: 'session_expired' });
      } finally {
        clearInterval(keepBusy);
      }
    });
  });

  describe('the path of the upgrade', () => {
    const auth = { Authorization: `Bearer ${TEST_API_KEY}` };

    it('reads the request target as the HTTP routes do: absolute form accepted, dot segments not resolved', async () => {
      await start();
      const http = async (target: string) => (await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.Authorization}`)).status;
      const upgrade = async (target: string) => (await rawUpgrade(port, target, auth)).status;
      expect(await http('/v1/./models')).to.equal(404);
      const dotted = await rawUpgrade(port, '/v1/./realtime?intent=transcription', auth);
      expect(dotted.status).to.equal(404);
      expect(JSON.parse(dotted.body).error.code).to.equal('not_found');
      expect(await http('http://127.0.0.1/v1/models')).to.equal(200);
      expect(await upgrade(`http://127.0.0.1:${port}/v1/realtime?intent=transcription`)).to.equal(101);
    });

    it('answers every spelling of the path alike on both: a route over HTTP exactly when a session over WebSocket', async function () {
      this.timeout(30_000);
      await start({ limits: { maxSessionsPerKey: 100, maxSessions: 100 } });
      const spellings = [
        (path: string) => path,
        (path: string) => `${path}/`,
        (path: string) => path.replace('/v1/', '/v1/./'),
        (path: string) => path.replace('/v1/', '/v1//'),
        (path: string) => `/${path}`,
        (path: string) => path.replace('/v1', '/V1'),
        (path: string) => path.replace('/v1', '/%76%31'),
        (path: string) => path.replace('/v1', '/users/../v1'),
        (path: string) => path.replace('/v1/', '/v1%2F'),
        (path: string) => path.replace('/v1/', '/v1\\'),
        (path: string) => path.replace('/v1', '/v1;a=b'),
        (path: string) => `http://127.0.0.1${path}`,
        (path: string) => `HTTP://EXAMPLE.ORG${path}`,
        (path: string) => `http://127.0.0.1${path.replace('/v1/', '/v1/x/../')}`,
      ];
      for (const spell of spellings) {
        const http = await rawRequest(port, `GET ${spell('/v1/models')} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.Authorization}`);
        const target = spell('/v1/realtime');
        const ws = await rawUpgrade(port, `${target}${target.includes('?') ? '&' : '?'}intent=transcription`, auth);
        expect(http.status === 200, `${spell('/v1/models')} → ${http.status}, ${target} → ${ws.status}`).to.equal(ws.status === 101);
        if (ws.status !== 101) expect(ws.headers['content-type'], target).to.match(/^application\/json/);
      }
    });
  });
});
