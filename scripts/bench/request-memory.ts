/**
 * What the costliest request of each route holds: for each scenario a fresh server on 127.0.0.1
 * (`tsx src/server.ts` under scripts/server-allocator.sh, jemalloc as `npm start` runs it; the test
 * models, `npm run test-models`), one small request to load the model, then the costliest request
 * within the documented limits. Printed: the server's RSS when idle before it, its peak during the
 * request (VmHWM, reset just before), its RSS 5 s after the answer, and the request's time.
 * One request per scenario (realtime: one session), each bounded by `--timeout` seconds.
 *
 *   npx tsx scripts/bench/request-memory.ts [--only tts,stt-long,…] [--audio-minutes 10] [--timeout 600] [--smoke]
 *
 * Run under `flock /tmp/bench.lock`; docs/benchmarks.md ("Memory") has the figures and
 * docs/security.md ("Memory a request holds") what bounds each route.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { loadAverage } from '../eval/lib/load-average.js';
import { type BenchServer, startServer } from '../eval/lib/bench-server.js';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    'audio-minutes': { type: 'string', default: '10' },
    /** Only the small warm-up requests: checks the script, measures nothing. */
    smoke: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '600' },
  },
});
const modelsDir = resolve(process.env.MODELS_DIR ?? 'models');
const MB = 2 ** 20;
const timeoutMs = Number(args.timeout) * 1000;
const audioMinutes = Number(args['audio-minutes']);

interface Scenario {
  name: string;
  route: string;
  /** The request, in words. */
  what: string;
  /** A small request that loads the model(s) the costly one uses. */
  warm(server: BenchServer): Promise<unknown>;
  /** What must exist before the costly request (not in smoke runs). */
  setup?(server: BenchServer): Promise<unknown>;
  /** The costly request; returns a word on its answer (bytes, status). */
  send(server: BenchServer): Promise<string>;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** `text` repeated, space-separated, up to `chars` characters. */
const repeatTo = (text: string, chars: number) => {
  let out = '';
  while (out.length + text.length + 1 <= chars) out += (out ? ' ' : '') + text;
  return out;
};
const PROSE =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish.';

async function call(server: BenchServer, path: string, init: { method?: string; json?: unknown; body?: Uint8Array | FormData; type?: string }) {
  const headers: Record<string, string> = { Authorization: `Bearer ${server.apiKey}` };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  else if (init.type) headers['Content-Type'] = init.type;
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : (init.body as BodyInit | undefined),
    signal: AbortSignal.timeout(timeoutMs),
  });
  // Read the answer to its end, as a client would (a streamed one is produced as it is read).
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return `${response.status}, ${(bytes / MB).toFixed(2)} MB`;
}

/** 16-bit mono WAV of `pcm` at `rate`. */
function wav(pcm: Uint8Array, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** Speech from the Piper test voice (spoken by a throw-away server once), 16 kHz PCM16, tiled to `seconds`. */
let speech16k: Buffer | undefined;
async function speechPcm(seconds: number, rate = 16_000): Promise<Buffer> {
  const cache = '/tmp/request-memory-speech-16k.pcm';
  if (!speech16k) {
    try {
      speech16k = readFileSync(cache);
    } catch {
      const server = await startServer({ modelsDir });
      try {
        const response = await fetch(`${server.baseUrl}/v1/audio/speech`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ model: 'piper-en_US-joe-medium', input: PROSE, response_format: 'pcm', sample_rate: 16_000 }),
        });
        speech16k = Buffer.from(await response.arrayBuffer());
        writeFileSync(cache, speech16k);
      } finally {
        await server.stop();
      }
    }
  }
  const clip = rate === 16_000 ? speech16k : resampleLinear(speech16k, 16_000, rate);
  const out = Buffer.alloc(Math.round(seconds * rate) * 2);
  for (let at = 0; at < out.length; at += clip.length) clip.copy(out, at, 0, Math.min(clip.length, out.length - at));
  return out;
}

function resampleLinear(pcm: Buffer, from: number, to: number): Buffer {
  const input = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
  const output = new Int16Array(Math.floor((input.length * to) / from));
  for (let i = 0; i < output.length; i++) output[i] = input[Math.min(input.length - 1, Math.round((i * from) / to))] as number;
  return Buffer.from(output.buffer);
}

function audioForm(model: string, audio: Buffer, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.set('model', model);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([new Uint8Array(audio)], { type: 'audio/wav' }), 'speech.wav');
  return form;
}

const TTS = 'piper-en_US-joe-medium';
const STT = 'whisper-tiny.en';
const PERCENT_399 = repeatTo('1%', 399);
/** The decode that costs most per window (issue 39): every fallback forced, the widest search, long hotwords. */
const MAX_DECODE = {
  beam_size: '5',
  best_of: '5',
  temperature: '0,0.2,0.4,0.6,0.8,1',
  log_prob_threshold: '0',
  compression_ratio_threshold: '1',
  hotwords: repeatTo('hotword', 4000),
};

const SCENARIOS: Scenario[] = [
  {
    name: 'tts',
    route: 'POST /v1/audio/speech',
    what: `399 characters of "1% 1% …", speed 0.25, pcm`,
    warm: (server) => call(server, '/v1/audio/speech', { json: { model: TTS, input: 'Hello.', response_format: 'pcm' } }),
    send: (server) => call(server, '/v1/audio/speech', { json: { model: TTS, input: PERCENT_399, speed: 0.25, response_format: 'pcm' } }),
  },
  {
    name: 'tts-flac',
    route: 'POST /v1/text-to-speech',
    what: `the same as FLAC (sent whole)`,
    warm: (server) => call(server, '/v1/text-to-speech', { json: { model: TTS, input: 'Hello.', response_format: 'flac' } }),
    send: (server) => call(server, '/v1/text-to-speech', { json: { model: TTS, input: PERCENT_399, speed: 0.25, response_format: 'flac' } }),
  },
  {
    name: 'stt-long',
    route: 'POST /v1/audio/transcriptions (= /v1/transcriptions, /v1/completions)',
    what: `${audioMinutes} min of speech, 16 kHz WAV, defaults`,
    warm: async (server) => call(server, '/v1/audio/transcriptions', { body: audioForm(STT, wav(await speechPcm(3), 16_000)) }),
    send: async (server) => call(server, '/v1/audio/transcriptions', { body: audioForm(STT, wav(await speechPcm(audioMinutes * 60), 16_000)) }),
  },
  {
    name: 'stt-raw',
    route: 'POST /v1/completions (raw body)',
    what: `${audioMinutes} min of speech, 48 kHz WAV as the raw body`,
    warm: async (server) => call(server, `/v1/completions?model=${STT}`, { body: wav(await speechPcm(3), 16_000), type: 'audio/wav' }),
    send: async (server) => call(server, `/v1/completions?model=${STT}`, { body: wav(await speechPcm(audioMinutes * 60, 48_000), 48_000), type: 'audio/wav' }),
  },
  {
    name: 'stt-decode',
    route: 'POST /v1/transcriptions',
    what: '60 s, beam 5 × best_of 5, six temperatures, every fallback forced, 4,000 characters of hotwords',
    warm: async (server) => call(server, '/v1/transcriptions', { body: audioForm(STT, wav(await speechPcm(3), 16_000)) }),
    send: async (server) => call(server, '/v1/transcriptions', { body: audioForm(STT, wav(await speechPcm(60), 16_000), MAX_DECODE) }),
  },
  {
    name: 'translate-audio',
    route: 'POST /v1/audio/translations',
    what: `${Math.min(audioMinutes, 5)} min of speech, whisper-base-pypi`,
    warm: async (server) => call(server, '/v1/audio/translations', { body: audioForm('whisper-base-pypi', wav(await speechPcm(3), 16_000)) }),
    send: async (server) =>
      call(server, '/v1/audio/translations', { body: audioForm('whisper-base-pypi', wav(await speechPcm(Math.min(audioMinutes, 5) * 60), 16_000)) }),
  },
  {
    name: 'realtime',
    route: 'GET /v1/realtime (WebSocket)',
    what: '4 turns of 120 s (the uncommitted maximum), committed by hand, appended as fast as the socket takes them',
    warm: (server) => realtime(server, 1, 2),
    send: (server) => realtime(server, 4, 120),
  },
  {
    name: 'classify',
    route: 'POST /v1/classifications',
    what: '64 texts of 10,000 characters (the batch and length maxima; 0.6 MB)',
    warm: (server) => call(server, '/v1/classifications', { json: { model: 'minilm-sentiment', query: 'Fine.' } }),
    send: (server) =>
      call(server, '/v1/classifications', { json: { model: 'minilm-sentiment', query: Array.from({ length: 64 }, () => repeatTo(PROSE, 10_000)) } }),
  },
  {
    name: 'embeddings',
    route: 'POST /v1/embeddings',
    what: '2,048 texts of 488 characters (1,000,000 together), float',
    warm: (server) => call(server, '/v1/embeddings', { json: { model: 'minilm-embeddings', input: 'Fine.' } }),
    send: (server) => call(server, '/v1/embeddings', { json: { model: 'minilm-embeddings', input: Array.from({ length: 2048 }, () => repeatTo(PROSE, 488)) } }),
  },
  {
    name: 'embeddings-long',
    route: 'POST /v1/embeddings',
    what: '100 texts of 10,000 characters',
    warm: (server) => call(server, '/v1/embeddings', { json: { model: 'minilm-embeddings', input: 'Fine.' } }),
    send: (server) =>
      call(server, '/v1/embeddings', { json: { model: 'minilm-embeddings', input: Array.from({ length: 100 }, () => repeatTo(PROSE, 10_000)) } }),
  },
  {
    name: 'tei',
    route: 'POST /embed, /predict (TEI)',
    what: 'each 256 texts (its batch maximum) of 3,900 characters (1 MB JSON)',
    warm: (server) =>
      Promise.all([call(server, '/embed', { json: { inputs: 'Fine.' } }), call(server, '/predict?model=minilm-sentiment', { json: { inputs: 'Fine.' } })]),
    send: async (server) =>
      [
        await call(server, '/embed', { json: { inputs: Array.from({ length: 256 }, () => repeatTo(PROSE, 3900)) } }),
        await call(server, '/predict?model=minilm-sentiment', { json: { inputs: Array.from({ length: 256 }, () => repeatTo(PROSE, 3900)) } }),
      ].join('; '),
  },
  {
    name: 'translate',
    route: 'POST /v1/engines/{model}/translate',
    what: '20,000 characters, apertium-eng-spa',
    warm: (server) => call(server, '/v1/engines/apertium-eng-spa/translate', { json: { model: 'apertium-eng-spa', text: 'Fine.', target_language: 'es' } }),
    send: (server) =>
      call(server, '/v1/engines/apertium-eng-spa/translate', { json: { model: 'apertium-eng-spa', text: repeatTo(PROSE, 20_000), target_language: 'es' } }),
  },
  {
    name: 'libretranslate',
    route: 'POST /translate (LibreTranslate)',
    what: '20,000 characters, en → es',
    warm: (server) => call(server, '/translate', { json: { q: 'Fine.', source: 'en', target: 'es', api_key: server.apiKey } }),
    send: (server) => call(server, '/translate', { json: { q: repeatTo(PROSE, 20_000), source: 'en', target: 'es', api_key: server.apiKey } }),
  },
  {
    name: 'users',
    route: 'GET /users',
    what: 'the whole list after 5,000 users of 200-character names were created',
    warm: (server) => call(server, '/users', { method: 'GET' }),
    setup: async (server) => {
      for (let i = 0; i < 5000; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) => call(server, '/users', { json: { name: repeatTo(`User ${i + j}`, 200), email: `user${i + j}@example.com` } })),
        );
      }
    },
    send: (server) => call(server, '/users', { method: 'GET' }),
  },
];

/** One realtime session, manual commits: `turns` turns of `seconds` s of 24 kHz PCM16, each appended in 1-s messages as fast as the socket takes them. */
function realtime(server: BenchServer, turns: number, seconds: number): Promise<string> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    const timer = setTimeout(() => {
      ws.terminate();
      fail(new Error('realtime: timed out'));
    }, timeoutMs);
    let completed = 0;
    let errors = 0;
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: STT }, turn_detection: null } },
          },
        }),
      ),
    );
    ws.on('message', async (data) => {
      const event = JSON.parse(data.toString()) as { type: string; error?: { message: string } };
      if (event.type === 'session.updated') {
        const pcm = await speechPcm(seconds, 24_000);
        for (let turn = 0; turn < turns; turn++) {
          for (let at = 0; at < pcm.length; at += 48_000) {
            ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 48_000).toString('base64') }));
          }
          ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
        }
      }
      if (event.type === 'error') errors++;
      if (event.type === 'conversation.item.input_audio_transcription.completed' && ++completed === turns) {
        clearTimeout(timer);
        ws.close();
        done(`${completed} turns transcribed, ${errors} error events`);
      }
    });
    ws.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
  });
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const chosen = args.only ? SCENARIOS.filter((scenario) => args.only!.split(',').includes(scenario.name)) : SCENARIOS;
console.log(`request-memory: ${chosen.length} scenarios, jemalloc via scripts/server-allocator.sh, load ${loadAverage()}`);
console.log(['scenario', 'idle MB', 'peak +MB', 'after 5 s +MB', 'time s', 'answer', 'load'].join(' | '));
for (const scenario of chosen) {
  const server = await startServer({ modelsDir, allocator: true });
  try {
    const warm = await scenario.warm(server);
    if (args.smoke) {
      console.log(`${scenario.name} | smoke: ${JSON.stringify(warm)}`);
      continue;
    }
    await scenario.setup?.(server);
    await sleep(5000);
    const idle = status(server.pid).rss;
    // Resets VmHWM to the current RSS, so it is this request's peak.
    writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    const started = performance.now();
    let answer: string;
    try {
      answer = await scenario.send(server);
    } catch (error) {
      answer = `failed: ${(error as Error).message}`;
    }
    const seconds = (performance.now() - started) / 1000;
    const { hwm } = status(server.pid);
    await sleep(5000);
    const after = status(server.pid).rss;
    console.log(
      [
        scenario.name,
        idle.toFixed(0),
        `+${(hwm - idle).toFixed(0)}`,
        `${after - idle >= 0 ? '+' : ''}${(after - idle).toFixed(0)}`,
        seconds.toFixed(1),
        answer,
        loadAverage(),
      ].join(' | '),
    );
  } finally {
    await server.stop();
  }
}
