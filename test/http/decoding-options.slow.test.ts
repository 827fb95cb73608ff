/**
 * Whisper's decoding options (docs/api.md, "Decoding options") driven the way clients send them:
 * the official `openai` SDKs (Node here, Python by scripts/conformance/python/decoding_options.py)
 * and our typed client. First on the random-weight fixture (each option reaches the decoder and
 * shows in its answer; every bad value is a 400 naming the field and its range), then on the real
 * whisper-tiny.en and Piper voice (`npm run test-models`; skipped when absent): a name Whisper
 * misspells is spelled right with a prompt, on every route that transcribes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import OpenAI, { BadRequestError, toFile } from 'openai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import type { Server } from 'node:http';
import { InferenceClient, type VerboseTranscription } from '../../src/client/index.js';
import { InferenceError } from '../../src/client/errors.js';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { serveTestApp, type ServedApp } from '../client/serve-test-app.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { connect, listen, stopListening, withKey } from '../helpers/realtime-client.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';
import { readFileSync } from 'node:fs';

const FIXTURE_MANIFEST: Manifest = {
  models: [
    {
      id: 'whisper-tiny-random',
      task: 'speech-to-text',
      engine: 'transformers-asr',
      description: 'random Whisper',
      license: 'MIT',
      options: { maxNewTokens: 6 },
    },
  ],
};
const MODEL = 'whisper-tiny-random';
const jfk = () => toFile(readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), 'jfk.mp3', { type: 'audio/mpeg' });
const sdk = (served: { baseUrl: string }) => new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${served.baseUrl}/v1`, maxRetries: 0, timeout: 120_000 });
/** Fields the SDK's types do not declare: it sends every key of the body as a form field. */
type Extra = Record<string, unknown>;

/** The message of the 400 the SDK raises. */
async function badRequest(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(BadRequestError);
    return (error as BadRequestError).message;
  }
  throw new Error('expected a 400');
}

describe('decoding options through the SDKs and our client (random-weight fixture)', function () {
  this.timeout(120_000);
  let served: ServedApp;
  let client: OpenAI;
  before(async () => {
    served = await serveTestApp({ manifest: FIXTURE_MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
    client = sdk(served);
  });
  after(() => served?.close());

  const verbose = async (options: Extra) =>
    (await client.audio.transcriptions.create({
      file: await jfk(),
      model: MODEL,
      response_format: 'verbose_json',
      ...options,
    })) as unknown as VerboseTranscription;

  it('temperature: one value decodes every window at it; the default falls back through the schedule', async () => {
    const fixed = await verbose({ temperature: 0.7 });
    expect(fixed.segments.length).to.be.above(0);
    expect(fixed.segments.every((segment) => segment.temperature === 0.7)).to.equal(true);
    // Random weights fail every threshold, so the default schedule runs to its end.
    const fallback = await verbose({});
    expect(fallback.segments.every((segment) => segment.temperature === 1)).to.equal(true);
    const listed = await verbose({ temperature: '0,0.4' });
    expect(listed.segments.every((segment) => segment.temperature === 0.4)).to.equal(true);
  });

  it('thresholds: a window passing them is not decoded again; no_speech_threshold can drop every window as silence', async () => {
    const lenient = await verbose({ log_prob_threshold: -20, compression_ratio_threshold: 10 });
    expect(lenient.segments.every((segment) => segment.temperature === 0)).to.equal(true);
    const silent = await verbose({ no_speech_threshold: 0, log_prob_threshold: 0, temperature: 0 });
    expect(silent.text).to.equal('');
  });

  it('beam_size decodes at temperature 0 with a beam search, best_of samples above it (200, segments as without)', async () => {
    for (const options of [
      { beam_size: 3, temperature: 0 },
      { beam_size: 2, patience: 2, length_penalty: 0.5 },
      { best_of: 3, temperature: 0.5 },
    ]) {
      const answer = await verbose(options);
      expect(answer.segments.length, JSON.stringify(options)).to.be.above(0);
    }
  });

  it('prompt, initial_prompt, hotwords and condition_on_previous_text are taken (200)', async () => {
    for (const options of [{ prompt: 'Siobhan Nguyen' }, { initial_prompt: 'Kubernetes' }, { hotwords: 'Grafana' }, { condition_on_previous_text: 'false' }]) {
      const answer = await client.audio.transcriptions.create({ file: await jfk(), model: MODEL, ...options });
      expect(answer.text, JSON.stringify(options)).to.be.a('string');
    }
  });

  it("include[]=logprobs: json carries OpenAI's {token, logprob, bytes} per text token, and usage in seconds", async () => {
    const answer = await client.audio.transcriptions.create({ file: await jfk(), model: MODEL, include: ['logprobs'], response_format: 'json' });
    expect(answer.logprobs?.length).to.be.above(0);
    for (const entry of answer.logprobs!) {
      expect(entry.token).to.be.a('string');
      expect(entry.logprob).to.be.at.most(0);
      expect(Buffer.from(entry.bytes!).toString('utf8')).to.equal(entry.token);
    }
    expect(answer.usage).to.deep.equal({ type: 'duration', seconds: 11 });
  });

  it('include[]=logprobs with stream: each delta carries its tokens, done all of them (openai-node stream)', async () => {
    const stream = await client.audio.transcriptions.create({ file: await jfk(), model: MODEL, include: ['logprobs'], stream: true });
    const deltas: Array<{ delta: string; logprobs?: { token: string }[] }> = [];
    let done: { text: string; logprobs?: { token: string }[] } | undefined;
    for await (const event of stream as AsyncIterable<Record<string, any>>) {
      if (event.type === 'transcript.text.delta') deltas.push(event as never);
      if (event.type === 'transcript.text.done') done = event as never;
    }
    expect(deltas.length).to.be.above(0);
    expect(deltas.every((delta) => Array.isArray(delta.logprobs))).to.equal(true);
    expect(done?.logprobs?.length).to.equal(deltas.flatMap((delta) => delta.logprobs!).length);
  });

  it('every out-of-range option is a 400 naming the field and its range', async () => {
    const cases: Array<[Extra, RegExp]> = [
      [{ temperature: 1.5 }, /"temperature" must be a number from 0 to 1, or up to 6 of them comma-separated/],
      [{ temperature: '0,0.2,0.4,0.6,0.8,1,0.9' }, /"temperature" must be .* up to 6/],
      [{ compression_ratio_threshold: 0.5 }, /"compression_ratio_threshold" must be a number between 1 and 10/],
      [{ log_prob_threshold: 1 }, /"log_prob_threshold" must be a number between -20 and 0/],
      [{ no_speech_threshold: 2 }, /"no_speech_threshold" must be a number between 0 and 1/],
      [{ condition_on_previous_text: 'maybe' }, /"condition_on_previous_text" must be one of: true, false/],
      [{ prompt: 'x'.repeat(4_001) }, /"prompt" is 4001 characters; the limit is 4000/],
      [{ prompt: 'a', initial_prompt: 'b' }, /"prompt" and "initial_prompt" are the same option/],
      [{ beam_size: 11 }, /"beam_size" must be an integer from 1 to 10/],
      [{ beam_size: 2.5 }, /"beam_size" must be an integer from 1 to 10/],
      [{ best_of: 0 }, /"best_of" must be an integer from 1 to 10/],
      [{ beam_size: 6, best_of: 5 }, /"beam_size" × "best_of" must be at most 25 \(the cost cap\); got 6 × 5 = 30/],
      [{ patience: 0.1 }, /"patience" must be a number between 0.5 and 5/],
      [{ length_penalty: 2 }, /"length_penalty" must be a number between 0 and 1/],
      [{ include: ['tokens'] }, /"include\[\]" values must be "logprobs"/],
      [{ include: ['logprobs'], response_format: 'verbose_json' }, /"include\[\]" logprobs needs "response_format" json/],
    ];
    for (const [options, message] of cases) {
      expect(await badRequest(client.audio.transcriptions.create({ file: await jfk(), model: MODEL, ...options }))).to.match(message);
    }
  });

  it('the raw-body and SPEC routes validate the same options (query string, X- headers)', async () => {
    const audio = readFileSync(join(SPEECH_DIR, 'en_jfk.mp3'));
    for (const path of ['/v1/transcriptions', '/v1/completions', '/v1/audio/transcriptions']) {
      const bad = await fetch(`${served.baseUrl}${path}?model=${MODEL}&temperature=3`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'Content-Type': 'audio/mpeg' },
        body: audio,
      });
      expect(bad.status, path).to.equal(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).to.match(/"temperature" must be a number from 0 to 1/);
      const ok = await fetch(`${served.baseUrl}${path}?model=${MODEL}&prompt=Kubernetes`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'Content-Type': 'audio/mpeg', 'X-Temperature': '0', 'X-Hotwords': 'Grafana' },
        body: audio,
      });
      expect(ok.status, path).to.equal(200);
    }
  });

  it('our client sends every option and reads logprobs and usage; its 400 is an InferenceError naming the field', async () => {
    const ours = served.client();
    const answer = await ours.transcribe({
      model: MODEL,
      file: readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')),
      responseFormat: 'verbose_json',
      prompt: 'Siobhan',
      hotwords: 'Grafana',
      temperature: [0.3],
      compressionRatioThreshold: 3,
      logProbThreshold: -2,
      noSpeechThreshold: 0.7,
      conditionOnPreviousText: false,
      bestOf: 2,
      beamSize: 2,
      patience: 1.5,
      lengthPenalty: 0.2,
    });
    expect(answer.segments.every((segment) => segment.temperature === 0.3)).to.equal(true);
    expect(answer.usage).to.deep.equal({ type: 'duration', seconds: 11 });
    const json = await ours.transcribe({ model: MODEL, file: readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), include: ['logprobs'] });
    expect(json.logprobs?.length).to.be.above(0);
    const failure = await ours.transcribe({ model: MODEL, file: readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), noSpeechThreshold: 1.5 }).catch((error) => error);
    expect(failure).to.be.instanceOf(InferenceError);
    expect((failure as InferenceError).status).to.equal(400);
    expect((failure as InferenceError).message).to.match(/"no_speech_threshold" must be a number between 0 and 1/);
    const tooWide = await ours.transcribe({ model: MODEL, file: readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), beamSize: 11 }).catch((error) => error);
    expect((tooWide as InferenceError).status).to.equal(400);
    expect((tooWide as InferenceError).message).to.match(/"beam_size" must be an integer from 1 to 10/);
  });

  it('documents every option in /openapi.json, on the OpenAI form and the SPEC routes', async () => {
    const document = (await (await fetch(`${served.baseUrl}/openapi.json`)).json()) as Record<string, any>;
    const form = document.components.schemas.OpenAITranscriptionForm.properties;
    for (const name of [
      'prompt',
      'initial_prompt',
      'hotwords',
      'temperature',
      'compression_ratio_threshold',
      'log_prob_threshold',
      'no_speech_threshold',
      'condition_on_previous_text',
      'beam_size',
      'best_of',
      'patience',
      'length_penalty',
      'include[]',
    ]) {
      expect(form, name).to.have.property(name);
    }
    const spec = document.paths['/v1/transcriptions'].post.parameters.map((parameter: { name: string }) => parameter.name);
    expect(spec).to.include.members(['prompt', 'hotwords', 'temperature', 'X-Temperature', 'no_speech_threshold', 'beam_size', 'X-Beam-Size']);
    expect(form.beam_size).to.include({ type: 'integer', minimum: 1, maximum: 10 });
    expect(JSON.stringify(document.paths['/v1/audio/transcriptions'])).to.not.match(/ignored/);
  });
});

/** Runs a command to its end. */
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

/**
 * Piper's Joe says a name whisper-tiny.en does not know: without a prompt it hears "Shavon New
 * Year" (found by trying names on this voice and model; docs/api.md, "Decoding options").
 */
const SENTENCE = 'Please send the report to Siobhan Nguyen before Friday.';
const NAME = 'Siobhan Nguyen';

describe('decoding options on the real whisper-tiny.en (a name spelled right with a prompt)', function () {
  this.timeout(300_000);
  const whisper = realModel('whisper-tiny.en');
  const piper = realModel('piper-en_US-joe-medium');
  let served: { app: TestApp; server: Server; baseUrl: string; client: () => InferenceClient } | undefined;
  let client: OpenAI;
  let wav: Buffer<ArrayBuffer>;
  before(async function () {
    if (!whisper.installed || !piper.installed) {
      console.log('      skipped: whisper-tiny.en or piper-en_US-joe-medium is not installed (npm run test-models installs them)');
      this.skip();
    }
    // Listening with the realtime upgrade, for the live session's test.
    const app = await createTestApp({ manifest: { models: [whisper.entry, piper.entry] as ManifestEntry[] }, modelsDir: REAL_MODELS_DIR });
    const { server, port } = await listen(app);
    const baseUrl = `http://127.0.0.1:${port}`;
    served = { app, server, baseUrl, client: () => new InferenceClient({ baseUrl, apiKey: TEST_API_KEY }) };
    client = sdk(served);
    const speech = await client.audio.speech.create({ model: 'piper-en_US-joe-medium', input: SENTENCE, voice: 'alloy', response_format: 'wav' });
    wav = Buffer.from(await speech.arrayBuffer());
  });
  after(() => stopListening(served?.app, served?.server));
  const file = () => toFile(wav, 'name.wav', { type: 'audio/wav' });

  it('openai-node: misspelt without the prompt, spelled right with it; hotwords too', async () => {
    const plain = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en' });
    expect(plain.text).to.not.include(NAME);
    const prompted = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en', prompt: NAME });
    expect(prompted.text).to.include(NAME);
    const hot = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en', hotwords: NAME } as Extra as never);
    expect((hot as { text: string }).text).to.include(NAME);
  });

  it('openai-node: beam_size 5 keeps the prompted name; beam_size 1 answers exactly the default decode', async () => {
    const beam = await client.audio.transcriptions.create({
      file: await file(),
      model: 'whisper-tiny.en',
      prompt: NAME,
      beam_size: 5,
      best_of: 5,
    } as Extra as never);
    expect((beam as { text: string }).text).to.include(NAME);
    const plain = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en' });
    const beamOne = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en', beam_size: 1 } as Extra as never);
    expect((beamOne as { text: string }).text).to.equal(plain.text);
  });

  it('include[]=logprobs: the tokens spell the text, each with a log probability', async () => {
    const answer = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-tiny.en', prompt: NAME, include: ['logprobs'] });
    const spelled = answer.logprobs!.map((entry) => entry.token).join('');
    expect(spelled.trim()).to.equal(answer.text);
    expect(answer.logprobs!.every((entry) => entry.logprob! <= 0)).to.equal(true);
  });

  it('the SPEC raw-body route, the SSE stream and our client take the prompt too', async () => {
    const raw = await fetch(`${served!.baseUrl}/v1/transcriptions?model=whisper-tiny.en&prompt=${encodeURIComponent(NAME)}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'Content-Type': 'audio/wav' },
      body: new Blob([wav]),
    });
    expect(((await raw.json()) as { transcript: string }).transcript).to.include(NAME);
    const events = [];
    for await (const event of served!.client().transcribeStream({ model: 'whisper-tiny.en', file: wav, prompt: NAME })) events.push(event);
    const done = events.find((event) => event.type === 'transcript.text.done');
    expect(done && 'text' in done ? done.text : '').to.include(NAME);
    const ours = await served!.client().transcribe({ model: 'whisper-tiny.en', file: wav, responseFormat: 'transcript', prompt: NAME });
    expect(ours.transcript).to.include(NAME);
  });

  it("realtime: session.audio.input.transcription.prompt is each turn's previous text", async () => {
    const { samples } = await decodeAudio(wav, { sampleRate: 24_000, maxSeconds: 60 });
    const pcm = Buffer.from(Int16Array.from(samples, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32767)))).buffer);
    const url = served!.baseUrl.replace('http://', 'ws://');
    const transcribeTurn = async (prompt?: string) => {
      const socket = await connect(`${url}/v1/realtime?intent=transcription&model=whisper-tiny.en`, withKey());
      const transcription = { model: 'whisper-tiny.en', ...(prompt ? { prompt } : {}) };
      socket.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { transcription, turn_detection: null } } } });
      await socket.next('session.updated');
      for (let at = 0; at < pcm.length; at += 4_800) socket.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 4_800).toString('base64') });
      socket.send({ type: 'input_audio_buffer.commit' });
      const completed = await socket.next('conversation.item.input_audio_transcription.completed');
      socket.ws.close();
      return String(completed.transcript);
    };
    expect(await transcribeTurn()).to.not.include(NAME);
    expect(await transcribeTurn(NAME)).to.include(NAME);
  });

  it('openai-python: prompt, extra_body hotwords and beam_size, include logprobs, and 400s for a bad temperature and beam', async function () {
    const python = process.env.OPENAI_PYTHON ?? join(REPO_ROOT, '.cache/venv/bin/python');
    if (!existsSync(python) || (await run(python, ['-c', 'import openai'])).code !== 0) {
      console.log(
        `      skipped: needs a Python with the openai SDK (npm run conformance installs it into .cache/venv, or set OPENAI_PYTHON); tried ${python}`,
      );
      this.skip();
    }
    const scratch = mkdtempSync(join(tmpdir(), 'decoding-options-'));
    try {
      const audioPath = join(scratch, 'name.wav');
      writeFileSync(audioPath, wav);
      const script = join(REPO_ROOT, 'scripts/conformance/python/decoding_options.py');
      const { code, stdout, stderr } = await run(python, [script, served!.baseUrl, TEST_API_KEY, audioPath, 'whisper-tiny.en', NAME]);
      expect(code, stderr).to.equal(0);
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
      expect(result.plain).to.not.include(NAME);
      expect(result.prompted).to.include(NAME);
      expect(result.hotwords).to.include(NAME);
      expect(result.logprobs.length).to.be.above(0);
      expect(result.logprobs[0]).to.have.keys(['token', 'logprob', 'bytes']);
      expect(result.usage).to.deep.equal({ type: 'duration', seconds: Math.ceil(samplesSeconds(wav)) });
      expect(result.bad_temperature.status).to.equal(400);
      expect(result.bad_temperature.message).to.include('"temperature" must be a number from 0 to 1');
      expect(result.beam).to.include(NAME);
      expect(result.beam_one).to.equal(result.plain);
      expect(result.bad_beam.status).to.equal(400);
      expect(result.bad_beam.message).to.include('"beam_size" × "best_of" must be at most 25');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/** Seconds of a 16-bit mono WAV (44-byte header), as Piper's are. */
function samplesSeconds(wav: Buffer): number {
  return (wav.length - 44) / 2 / wav.readUInt32LE(24);
}
