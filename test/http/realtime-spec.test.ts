/**
 * Every event our realtime transcription sessions send, validated against OpenAI's own schema
 * for its type (test/fixtures/openai-openapi: `RealtimeServerEvent…` in a GA session,
 * `RealtimeBetaServerEvent…` in a beta one), over real sessions: real speech, whisper-tiny.en
 * and Silero VAD from models/, the model named by an OpenAI alias of the shipped table. Each
 * session walks through what a session sends: created, updated (echoing noise reduction and
 * logprobs), server-VAD turns, a turn committed by hand, a clear, refused events, a model
 * refused at the update, and a turn that fails. The last test checks that every event type the
 * server sends was seen in both dialects, so a new one cannot go unchecked.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createKeyStore } from '../../src/auth/key-store.js';
import type { AliasEntry, Manifest } from '../../src/inference/manifest.js';
import { pcm16At24k } from '../helpers/live-speech.js';
import { type RealtimeDialect, realtimeEventProblems } from '../helpers/openai-spec.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { connect, listen, type RealtimeClient, type ServerEvent, stopListening, withBetaKey, withKey } from '../helpers/realtime-client.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

const SESSION = '/v1/realtime?intent=transcription';
const LOGPROBS = 'item.input_audio_transcription.logprobs';
const STT = 'whisper-tiny.en';

/** The event types a session of each dialect sends. */
const SENT: Record<RealtimeDialect, string[]> = {
  ga: ['session.created', 'session.updated', 'conversation.item.added', 'conversation.item.done'],
  beta: ['transcription_session.created', 'transcription_session.updated', 'conversation.item.created'],
};
const SENT_IN_BOTH = [
  'input_audio_buffer.speech_started',
  'input_audio_buffer.speech_stopped',
  'input_audio_buffer.committed',
  'input_audio_buffer.cleared',
  'conversation.item.input_audio_transcription.delta',
  'conversation.item.input_audio_transcription.completed',
  'conversation.item.input_audio_transcription.failed',
  'error',
];

/** The model a dialect's session asks for: one of OpenAI's names, which the shipped alias table maps. */
const MODEL: Record<RealtimeDialect, string> = { ga: 'gpt-realtime-whisper', beta: 'gpt-4o-transcribe' };

/** A session update in the dialect's shape: every setting an SDK may send, noise reduction and logprobs too. */
function update(dialect: RealtimeDialect, settings: { model: string; vad: boolean }): Record<string, unknown> {
  const transcription = { model: settings.model, language: 'en' };
  const turnDetection = settings.vad ? { type: 'server_vad', silence_duration_ms: 500 } : null;
  if (dialect === 'ga') {
    return {
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: { format: { type: 'audio/pcm', rate: 24_000 }, transcription, noise_reduction: { type: 'near_field' }, turn_detection: turnDetection },
        },
        include: [LOGPROBS],
      },
    };
  }
  return {
    type: 'transcription_session.update',
    session: {
      input_audio_format: 'pcm16',
      input_audio_transcription: transcription,
      input_audio_noise_reduction: { type: 'near_field' },
      turn_detection: turnDetection,
      include: [LOGPROBS],
    },
  };
}

const UPDATED = { ga: 'session.updated', beta: 'transcription_session.updated' } as const;
const CREATED = { ga: 'session.created', beta: 'transcription_session.created' } as const;

/** The shipped alias table's speech-to-text names, each standing for whisper-tiny.en here. */
function speechAliases(): Record<string, AliasEntry> {
  const shipped = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
  return Object.fromEntries(
    Object.entries(shipped.aliases ?? {})
      .filter(([, alias]) => alias.task === 'speech-to-text')
      .map(([name]) => [name, { task: 'speech-to-text', prefer: [STT] }]),
  );
}

describe('realtime sessions send only events that conform to OpenAI’s spec (GA and beta)', () => {
  const whisper = realModel(STT);
  const vad = realModel('silero-vad-v6');
  const seen: Record<RealtimeDialect, Set<string>> = { ga: new Set(), beta: new Set() };
  const problems: string[] = [];
  let app: TestApp;
  let server: Server;
  let base: string;
  let speech: Buffer;
  let shortSpeech: Buffer;

  before(async function () {
    // Real weights are not committed; `npm run test-models` installs them.
    if (!whisper.installed || !vad.installed) this.skip();
    app = await createTestApp({ manifest: { models: [whisper.entry!, vad.entry!], aliases: speechAliases() }, modelsDir: REAL_MODELS_DIR });
    ({ server, url: base } = await listen(app));
    speech = await pcm16At24k('en_librivox_sense_and_sensibility_0880.wav');
    shortSpeech = await pcm16At24k('en_cards_001.wav');
  });
  after(async () => {
    await stopListening(app, server);
  });

  /** Every event the client got, checked against its schema; the problems are kept for the last test to list too. */
  function check(dialect: RealtimeDialect, client: RealtimeClient): string[] {
    const found = client.events.flatMap((event) => {
      seen[dialect].add(event.type);
      return realtimeEventProblems(dialect, event);
    });
    problems.push(...found);
    return found;
  }

  async function open(dialect: RealtimeDialect, key?: string): Promise<RealtimeClient> {
    const client = await connect(`${base}${SESSION}`, dialect === 'ga' ? withKey(key) : withBetaKey(key));
    await client.next(CREATED[dialect]);
    return client;
  }

  async function updated(client: RealtimeClient, dialect: RealtimeDialect, event: Record<string, unknown>): Promise<ServerEvent> {
    const from = client.events.length;
    client.send(event);
    const answer = await Promise.race([client.next(UPDATED[dialect], from), client.next('error', from)]);
    expect(answer.type, JSON.stringify(answer)).to.equal(UPDATED[dialect]);
    return answer;
  }

  async function errorFor(client: RealtimeClient, send: () => void): Promise<Record<string, unknown>> {
    const from = client.events.length;
    send();
    return (await client.next('error', from)).error as Record<string, unknown>;
  }

  const appendAll = (client: RealtimeClient, pcm: Buffer) => {
    // 100-ms appends as fast as the socket takes them: turns are cut on the audio's own clock.
    for (let at = 0; at < pcm.length; at += 4_800) client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 4_800).toString('base64') });
  };
  const count = (client: RealtimeClient, type: string) => client.count(type);

  for (const dialect of ['ga', 'beta'] as const) {
    it(`sends conforming events through a whole ${dialect} session: VAD turns, a committed turn, a clear, refusals`, async function () {
      this.timeout(60_000);
      const client = await open(dialect);
      const answer = await updated(client, dialect, update(dialect, { model: MODEL[dialect], vad: true }));
      // What the client set is what the session says it has.
      const session = answer.session as Record<string, unknown>;
      if (dialect === 'ga') {
        const input = (session.audio as { input: Record<string, unknown> }).input;
        expect(input.noise_reduction).to.deep.equal({ type: 'near_field' });
        expect(input.transcription).to.deep.include({ model: MODEL.ga, language: 'en' });
      } else {
        expect(session.input_audio_noise_reduction).to.deep.equal({ type: 'near_field' });
        expect(session.input_audio_transcription).to.deep.include({ model: MODEL.beta, language: 'en' });
      }
      expect(session.include).to.deep.equal([LOGPROBS]);

      // Server VAD: speech between silences, every turn transcribed with its tokens' logprobs.
      const silence = (seconds: number) => Buffer.alloc(Math.round(24_000 * 2 * seconds));
      appendAll(client, Buffer.concat([silence(0.5), speech, silence(1.5)]));
      await until(
        () =>
          count(client, 'input_audio_buffer.speech_started') >= 1 &&
          count(client, 'input_audio_buffer.speech_stopped') === count(client, 'input_audio_buffer.speech_started') &&
          count(client, 'conversation.item.input_audio_transcription.completed') === count(client, 'input_audio_buffer.speech_started'),
        'every VAD turn transcribed',
        30_000,
        20,
      );
      const completed = client.events.filter((event) => event.type === 'conversation.item.input_audio_transcription.completed');
      expect(completed.map((event) => event.transcript).join(' ')).to.match(/\w/);
      expect(completed[0]!.logprobs).to.be.an('array').that.is.not.empty;

      // By hand: no VAD, one committed turn, then a clear.
      await updated(client, dialect, update(dialect, { model: MODEL[dialect], vad: false }));
      const from = client.events.length;
      appendAll(client, shortSpeech);
      client.send({ type: 'input_audio_buffer.commit', event_id: 'commit_1' });
      const committed = await client.next('input_audio_buffer.committed', from);
      await until(
        () => client.events.some((event) => event.type === 'conversation.item.input_audio_transcription.completed' && event.item_id === committed.item_id),
        'the committed turn transcribed',
        30_000,
        20,
      );
      appendAll(client, silence(0.2));
      client.send({ type: 'input_audio_buffer.clear' });
      await client.next('input_audio_buffer.cleared', from);

      // Refusals: each an error event naming the event and, where one is at fault, the field.
      expect(await errorFor(client, () => client.ws.send('not json'))).to.include({ code: 'invalid_json' });
      expect(await errorFor(client, () => client.send({ type: 'response.create', event_id: 'e1' }))).to.include({ code: 'unknown_event', event_id: 'e1' });
      expect(await errorFor(client, () => client.send({ type: 'input_audio_buffer.commit', event_id: 'c2' }))).to.include({
        code: 'input_audio_buffer_commit_empty',
        event_id: 'c2',
      });
      expect(await errorFor(client, () => client.send({ type: 'input_audio_buffer.append', audio: 'not base64!' }))).to.include({ param: 'audio' });
      const unknownModel = await errorFor(client, () => client.send({ ...update(dialect, { model: 'gpt-9-transcribe', vad: false }), event_id: 'u9' }));
      expect(unknownModel).to.include({
        code: 'model_not_found',
        event_id: 'u9',
        param: dialect === 'ga' ? 'session.audio.input.transcription.model' : 'session.input_audio_transcription.model',
      });
      expect(unknownModel.message).to.include('gpt-9-transcribe');
      client.ws.close();
      expect(check(dialect, client)).to.deep.equal([]);
    });

    it(`sends a conforming transcription.failed when a turn cannot run (${dialect})`, async () => {
      // One request a minute: the upgrade takes it, so the first turn is over the key's limit.
      const { key } = await createKeyStore(app.db, { staticKeys: [] }).create(`spec-${dialect}`, { rpm: 1 });
      const client = await open(dialect, key);
      await updated(client, dialect, update(dialect, { model: MODEL[dialect], vad: false }));
      appendAll(client, Buffer.alloc(24_000));
      client.send({ type: 'input_audio_buffer.commit' });
      const failed = await client.next('conversation.item.input_audio_transcription.failed');
      expect(failed.error).to.include({ code: 'rate_limited' });
      client.ws.close();
      expect(check(dialect, client)).to.deep.equal([]);
    });
  }

  it('has seen, and checked, every event type each dialect sends', () => {
    for (const dialect of ['ga', 'beta'] as const) expect([...seen[dialect]].sort(), dialect).to.deep.equal([...SENT[dialect], ...SENT_IN_BOTH].sort());
    expect(problems).to.deep.equal([]);
  });
});
