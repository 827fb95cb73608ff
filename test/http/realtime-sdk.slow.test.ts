/**
 * Live transcription driven by the official SDKs in the GA Realtime protocol, against a real
 * listening server with whisper-tiny.en and Silero VAD (`npm run test-models`; skipped with a
 * reason when absent): openai-node's `OpenAIRealtimeWS` with `intent: 'transcription'`, and
 * openai-python's `client.realtime.connect()` (scripts/conformance/python/realtime_transcription.py,
 * which the conformance suite runs too) when a Python with the SDK is at hand.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { RealtimeClientEvent, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { pcm16At24k } from '../helpers/live-speech.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { listen, stopListening } from '../helpers/realtime-client.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

const JFK = 'ask not what your country can do for you';
const PYTHON_CLIENT = join(REPO_ROOT, 'scripts/conformance/python/realtime_transcription.py');
/** 24-kHz PCM16 silence. */
const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 24_000) * 2);

/** A session of openai-node's OpenAIRealtimeWS, recording every event it hands the app. */
class NodeSdkSession {
  readonly events: RealtimeServerEvent[] = [];
  readonly rt: OpenAIRealtimeWS;
  readonly #waiters: (() => void)[] = [];

  constructor(port: number) {
    const client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    // The SDK always builds a wss:// URL; this server speaks plain HTTP on loopback (TLS belongs
    // to the proxy in front of it), so the socket under the handshake is a plain TCP one.
    this.rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { createConnection: () => tcpConnect({ host: '127.0.0.1', port }) } }, client);
    this.rt.on('event', (event) => {
      this.events.push(event);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    // Error events are recorded above; without a listener the SDK would throw them.
    this.rt.on('error', () => {});
  }

  async opened(): Promise<void> {
    if (this.rt.socket.readyState === this.rt.socket.OPEN) return;
    await new Promise((resolve, reject) => this.rt.socket.once('open', resolve).once('error', reject));
  }

  send(event: RealtimeClientEvent): void {
    this.rt.send(event);
  }

  /** The first event of `type` (already received or the next). */
  async next<T extends RealtimeServerEvent['type']>(type: T): Promise<Extract<RealtimeServerEvent, { type: T }>> {
    for (;;) {
      const found = this.events.find((event) => event.type === type || event.type === 'error');
      if (found?.type === 'error') throw new Error(`error event: ${JSON.stringify(found.error)}`);
      if (found) return found as Extract<RealtimeServerEvent, { type: T }>;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** The events of `type` so far. */
  of<T extends RealtimeServerEvent['type']>(type: T): Extract<RealtimeServerEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<RealtimeServerEvent, { type: T }> => event.type === type);
  }

  /** Resolves once `condition` holds, checked after each event. */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) {
      const error = this.events.find((event) => event.type === 'error');
      if (error) throw new Error(`error event: ${JSON.stringify(error)}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Audio in 100-ms appends (4,800 bytes), as fast as the socket takes them. */
  append(pcm: Buffer): void {
    for (let at = 0; at < pcm.length; at += 4_800) this.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 4_800).toString('base64') });
  }

  close(): void {
    this.rt.close();
  }
}

/** The session.update of a transcription session, as the SDK's types spell it. */
function transcriptionUpdate(turnDetection: { type: 'server_vad'; silence_duration_ms: number } | null): RealtimeClientEvent {
  return {
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'whisper-1', language: 'en' }, turn_detection: turnDetection } },
    },
  };
}

/** A Python with the `openai` SDK (GA realtime) and `websockets`, or why there is none. */
async function pythonWithSdk(): Promise<{ python?: string; reason?: string }> {
  const python = process.env.OPENAI_PYTHON ?? join(REPO_ROOT, '.cache/venv/bin/python');
  const reason = `needs a Python with the openai SDK's GA realtime client (openai.types.realtime) and websockets: npm run conformance installs them into .cache/venv (or set OPENAI_PYTHON); tried ${python}`;
  if (!existsSync(python)) return { reason };
  const { code } = await run(python, ['-c', 'import openai.types.realtime, websockets']);
  return code === 0 ? { python } : { reason };
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('realtime transcription with the official SDKs (GA protocol, whisper-tiny.en)', () => {
  const whisper = realModel('whisper-tiny.en');
  const vad = realModel('silero-vad-v6');
  let app: TestApp;
  let server: Server;
  let port: number;
  let speech: Buffer;
  let scratch: string;

  before(async function () {
    // Real weights are not committed; `npm run test-models` installs them.
    if (!whisper.installed) this.skip();
    app = await createTestApp({
      manifest: {
        models: [whisper.entry!, ...(vad.installed ? [vad.entry!] : [])],
        aliases: { 'whisper-1': { task: 'speech-to-text', prefer: ['whisper-tiny.en'] } },
      },
      modelsDir: REAL_MODELS_DIR,
    });
    ({ server, port } = await listen(app));
    speech = await pcm16At24k('en_jfk.wav');
    scratch = mkdtempSync(join(tmpdir(), 'realtime-sdk-'));
  });
  after(async () => {
    await stopListening(app, server);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  describe('openai-node OpenAIRealtimeWS', () => {
    it('transcribes a turn the client commits (turn_detection: null)', async function () {
      this.timeout(60_000);
      const session = new NodeSdkSession(port);
      try {
        await session.opened();
        expect((await session.next('session.created')).session).to.include({ type: 'transcription' });
        session.send(transcriptionUpdate(null));
        const updated = await session.next('session.updated');
        expect(updated.session).to.deep.include({ type: 'transcription' });
        session.append(speech);
        session.send({ type: 'input_audio_buffer.commit' });
        const committed = await session.next('input_audio_buffer.committed');
        const completed = await session.next('conversation.item.input_audio_transcription.completed');
        expect(completed.item_id).to.equal(committed.item_id);
        expect(completed.transcript.toLowerCase()).to.include(JFK);
        expect(completed.usage).to.include({ type: 'duration' });
        const delta = await session.next('conversation.item.input_audio_transcription.delta');
        expect(delta.item_id).to.equal(committed.item_id);
        expect((await session.next('conversation.item.added')).item).to.include({ id: committed.item_id });
      } finally {
        session.close();
      }
    });

    it('has turns cut by server VAD, with item ids, and times that go on across a clear', async function () {
      if (!vad.installed) this.skip();
      this.timeout(60_000);
      const session = new NodeSdkSession(port);
      try {
        await session.opened();
        session.send(transcriptionUpdate({ type: 'server_vad', silence_duration_ms: 500 }));
        await session.next('session.updated');
        // A second of silence the client clears, then a second more, the clip and the silence that ends its last turn.
        session.append(silence(1));
        session.send({ type: 'input_audio_buffer.clear' });
        await session.next('input_audio_buffer.cleared');
        session.append(Buffer.concat([silence(1), speech, silence(1.5)]));
        // Events are handled in order: once this clear is answered, VAD has cut every turn of the audio.
        session.send({ type: 'input_audio_buffer.clear' });
        await session.until(() => session.of('input_audio_buffer.cleared').length === 2);
        const turns = session.of('input_audio_buffer.speech_started');
        expect(turns.length).to.be.within(1, 4);
        await session.until(() => session.of('conversation.item.input_audio_transcription.completed').length === turns.length);
        for (const { item_id: itemId } of turns) {
          for (const type of [
            'input_audio_buffer.speech_stopped',
            'input_audio_buffer.committed',
            'conversation.item.input_audio_transcription.completed',
          ] as const) {
            expect(
              session.of(type).some((event) => 'item_id' in event && event.item_id === itemId),
              `${type} of ${itemId}`,
            ).to.equal(true);
          }
        }
        // Times count all the audio of the session, the cleared second included (the clip's own lead-in on top).
        expect(turns[0]!.audio_start_ms).to.be.within(2_000, 2_700);
        const heard = session.of('conversation.item.input_audio_transcription.completed').map((event) => event.transcript);
        expect(
          heard
            .join(' ')
            .toLowerCase()
            .replace(/[^a-z ]/g, ''),
        ).to.include(JFK);
      } finally {
        session.close();
      }
    });
  });

  describe('openai-python client.realtime.connect', () => {
    let python: string | undefined;
    before(async function () {
      const found = await pythonWithSdk();
      if (!found.python) {
        console.log(`      (skipped: ${found.reason})`);
        this.skip();
      }
      python = found.python;
    });

    for (const mode of ['manual', 'server_vad'] as const) {
      it(`transcribes ${mode === 'manual' ? 'a turn the client commits' : 'the turns server VAD cuts'}`, async function () {
        if (mode === 'server_vad' && !vad.installed) this.skip();
        this.timeout(120_000);
        const pcmFile = join(scratch, `${mode}.pcm`);
        writeFileSync(pcmFile, Buffer.concat([silence(0.5), speech, silence(1.5)]));
        const { code, stdout, stderr } = await run(python!, [PYTHON_CLIENT, `http://127.0.0.1:${port}`, TEST_API_KEY, pcmFile, mode]);
        expect(code, stderr).to.equal(0);
        const result = JSON.parse(stdout) as { events: string[]; transcripts: string[]; error?: unknown };
        expect(result.error, stdout).to.equal(undefined);
        expect(result.events.slice(0, 2)).to.deep.equal(['session.created', 'session.updated']);
        const expected = ['input_audio_buffer.committed', 'conversation.item.added', 'conversation.item.input_audio_transcription.completed'];
        if (mode === 'server_vad') expected.unshift('input_audio_buffer.speech_started', 'input_audio_buffer.speech_stopped');
        expect(result.events).to.include.members(expected);
        expect(
          result.transcripts
            .join(' ')
            .toLowerCase()
            .replace(/[^a-z ]/g, ''),
          JSON.stringify(result.transcripts),
        ).to.include(JFK);
      });
    }
  });
});
