/**
 * `stream=true` on POST /v1/audio/transcriptions and /v1/transcriptions: server-sent
 * `transcript.text.delta` events while a long file is transcribed, then `transcript.text.done`.
 * Real whisper-tiny.en on ~33 s joined from the speech clips (two windows; ~70 s for the hang-up); the
 * random-weight fixture for the errors that must stay plain JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { encodeWav } from '../../src/audio/encode-wav.js';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { decodeClipsOnce, joinClips } from '../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { cpuUntilIdle } from '../inference/cpu-load.js';
import { closeServer } from '../helpers/close-server.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

interface StreamEvent {
  type: string;
  delta?: string;
  text?: string;
}

/** Reads a text/event-stream response, noting for each event how many had arrived before it (all at once = 0 apart). */
async function readEvents(response: Response, onEvent?: (event: StreamEvent) => void): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body!) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (!data) continue;
      const event = JSON.parse(data.slice('data: '.length)) as StreamEvent;
      events.push(event);
      onEvent?.(event);
    }
  }
  return events;
}

function multipart(fields: Record<string, string>, audio: Uint8Array): FormData {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(audio)], { type: 'audio/wav' }), 'long.wav');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

describe('stream=true with the real whisper-tiny.en on joined clips', function () {
  this.timeout(300_000);
  const REAL_MODELS_DIR = join(REPO_ROOT, 'models');
  let app: TestApp;
  let server: Server | undefined;
  let baseUrl: string;
  let wav: Uint8Array;
  /** Three windows: what a hang-up after the first must not decode costs far more than the bound below. */
  let longWav: Uint8Array;

  before(async function () {
    const manifestPath = join(REAL_MODELS_DIR, 'models.json');
    const entry = existsSync(manifestPath)
      ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest).models.find((model: ManifestEntry) => model.id === 'whisper-tiny.en')
      : undefined;
    if (!entry || !existsSync(join(REAL_MODELS_DIR, entry.id, '.installed.json'))) this.skip(); // `npm run test-models` installs it
    const clips = await decodeClipsOnce(await readSpeechClips(SPEECH_DIR));
    const audio = joinClips(clips, { targetSeconds: 33, gapSeconds: 1.5 });
    wav = encodeWav({ samples: audio.samples, sampleRate: audio.sampleRate });
    const long = joinClips(clips, { targetSeconds: 70, gapSeconds: 1.5 });
    longWav = encodeWav({ samples: long.samples, sampleRate: long.sampleRate });
    app = await createTestApp({ manifest: { models: [entry] }, modelsDir: REAL_MODELS_DIR });
    const listening = createServer(app.app.callback());
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });
  after(async () => {
    await closeServer(server);
    await app?.close();
  });

  it('POST /v1/audio/transcriptions (OpenAI form) sends the text as deltas while decoding, then done with the same text as json', async () => {
    const response = await fetch(`${baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: bearer() },
      body: multipart({ model: 'whisper-tiny.en', stream: 'true' }, wav),
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events = await readEvents(response);
    const deltas = events.filter((event) => event.type === 'transcript.text.delta');
    const done = events[events.length - 1]!;
    expect(done.type).to.equal('transcript.text.done');
    expect(events.filter((event) => event.type === 'transcript.text.done')).to.have.length(1);
    expect(deltas.length, 'one delta per decoded window at least').to.be.at.least(2);
    expect(
      deltas
        .map((event) => event.delta)
        .join('')
        .trim(),
    ).to.equal(done.text);

    const plain = await fetch(`${baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: bearer() },
      body: multipart({ model: 'whisper-tiny.en' }, wav),
    });
    expect(((await plain.json()) as { text: string }).text).to.equal(done.text);
  });

  it('POST /v1/transcriptions?stream=true (raw body) streams the same events; a client that hangs up cancels the work', async () => {
    const controller = new AbortController();
    // vad_filter=false: the sequential decode sends a delta per window. (The VAD path sends its
    // first window, decoded alone, before it batches the rest: decode-windows-batched.slow.test.ts.)
    const response = await fetch(`${baseUrl}/v1/transcriptions?model=whisper-tiny.en&stream=true&vad_filter=false`, {
      method: 'POST',
      headers: { authorization: bearer(), 'content-type': 'audio/wav' },
      body: Buffer.from(longWav),
      signal: controller.signal,
    });
    expect(response.status).to.equal(200);
    const seen: StreamEvent[] = [];
    // Hang up at the first delta: the first window is decoded, the later ones must not be.
    const reading = readEvents(response, (event) => {
      seen.push(event);
      controller.abort(new Error('client went away'));
    }).catch((error: unknown) => error);
    await reading;
    expect(seen[0]?.type).to.equal('transcript.text.delta');
    expect(seen.some((event) => event.type === 'transcript.text.done')).to.equal(false);
    const { settled, cpuSeconds } = await cpuUntilIdle();
    console.log(`      after the hang-up: ${cpuSeconds.toFixed(2)} CPU-s until idle`);
    expect(settled, 'the worker stopped decoding').to.equal(true);
    // Whole-file decoding costs ~10 CPU-s here; a cancelled one stops within a decoder step or an encoder pass.
    expect(cpuSeconds).to.be.below(4);
  });
});

describe('stream=true errors before the first event stay plain JSON (random-weight fixture)', () => {
  const MANIFEST: Manifest = {
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
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
  });
  after(() => app.close());

  it('answers 400 JSON for undecodable audio or a bad stream value, 404 for an unknown model; stream with srt streams the same events', async () => {
    const post = (query: string, body: Uint8Array) =>
      app.request.post(`/v1/audio/transcriptions?${query}`).set('Authorization', bearer()).set('Content-Type', 'audio/wav').send(Buffer.from(body));
    const silence = encodeWav({ samples: new Float32Array(16_000), sampleRate: 16_000 });
    const cases: Array<[string, Uint8Array, number, string]> = [
      ['model=whisper-tiny-random&stream=true', new Uint8Array([1, 2, 3, 4]), 400, 'undecodable_audio'],
      ['model=whisper-tiny-random&stream=yes', silence, 400, 'invalid_request'],
      ['model=nope&stream=true', silence, 404, 'model_not_found'],
    ];
    for (const [query, body, status, code] of cases) {
      const res = await post(query, body);
      expect(res.status, query).to.equal(status);
      expect(res.type, query).to.equal('application/json');
      expect(res.body.error.code, query).to.equal(code);
    }
    const srt = await post('model=whisper-tiny-random&stream=true&response_format=srt', silence);
    expect(srt.status).to.equal(200);
    expect(srt.headers['content-type']).to.match(/^text\/event-stream/);
    expect(srt.text).to.include('"type":"transcript.text.done"');
  });

  it('streams a one-window transcript as one delta and done', async () => {
    const res = await app.request
      .post('/v1/transcriptions?model=whisper-tiny-random&stream=true')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/wav')
      .send(Buffer.from(encodeWav({ samples: new Float32Array(32_000).map((_, i) => Math.sin(i / 10) * 0.3), sampleRate: 16_000 })));
    expect(res.status).to.equal(200);
    expect(res.type).to.equal('text/event-stream');
    const events = res.text
      .trim()
      .split('\n\n')
      .map((block) => JSON.parse(block.replace(/^data: /, '')) as StreamEvent);
    expect(events.map((event) => event.type).slice(-1)).to.deep.equal(['transcript.text.done']);
    expect(
      events
        .slice(0, -1)
        .map((event) => event.delta)
        .join(''),
    ).to.equal(events[events.length - 1]!.text);
  });
});
