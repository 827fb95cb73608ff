/**
 * Node clients against the running server: the official `openai` npm SDK on every audio call,
 * live transcription (`OpenAIRealtimeWS`, GA protocol), models and embeddings, and the npm
 * `libretranslate` and `translate` packages. One JSON line per
 * case goes to the results file given as argv[2]. Environment as scripts/conformance/python/run_cases.py.
 */
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { translate } from 'libretranslate';
import { connect as tcpConnect } from 'node:net';
import { Translate } from 'translate';
import OpenAI, { NotFoundError, toFile } from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const base = process.env.CONFORMANCE_BASE_URL!;
const apiKey = process.env.CONFORMANCE_API_KEY!;
const filter = process.env.CONFORMANCE_FILTER ?? '';
const out = process.argv[2]!;
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0, timeout: 120_000 });

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The clip the Python suite wrote (the tests' jfk clip or the server's own TTS), else the tests' clip, else make one. */
async function clip(): Promise<Buffer> {
  const written = join(process.env.CONFORMANCE_WORK ?? '/tmp', 'audio.wav');
  if (existsSync(written)) return readFileSync(written);
  const fixture = resolve(ROOT, 'test/fixtures/speech/en_jfk.wav');
  if (existsSync(fixture)) return readFileSync(fixture);
  const speech = await client.audio.speech.create({
    model: 'tts-1',
    voice: 'alloy',
    input: 'Ask not what your country can do for you.',
    response_format: 'wav',
  });
  const bytes = Buffer.from(await speech.arrayBuffer());
  writeFileSync(written, bytes);
  return bytes;
}
const audio = async () => toFile(await clip(), 'audio.wav', { type: 'audio/wav' });

type Case = [string, string, () => Promise<void>];
const cases: Case[] = [];
const add = (suite: string, name: string, fn: () => Promise<void>) => cases.push([suite, name, fn]);

for (const format of ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const) {
  add('openai-node', `transcriptions[${format}]`, async () => {
    const result: unknown = await client.audio.transcriptions.create({ file: await audio(), model: 'whisper-1', response_format: format });
    if (format === 'json' || format === 'verbose_json') {
      const t = result as { text: string; segments?: unknown[]; language?: string };
      check(/country/i.test(t.text), `text ${JSON.stringify(t.text)}`);
      if (format === 'verbose_json') check(Array.isArray(t.segments) && t.segments.length > 0, 'segments');
    } else {
      check(typeof result === 'string' && result.length > 0, `${format}: expected a string, got ${typeof result}`);
    }
  });
}
add('openai-node', 'transcriptions[verbose_json+word]', async () => {
  const t = await client.audio.transcriptions.create({
    file: await audio(),
    model: 'whisper-1',
    response_format: 'verbose_json',
    timestamp_granularities: ['word'],
  });
  check(Array.isArray(t.words) && t.words.length > 0, `words ${JSON.stringify(t.words)}`);
});
add('openai-node', 'transcriptions[stream=true]', async () => {
  const stream = await client.audio.transcriptions.create({ file: await audio(), model: 'gpt-4o-mini-transcribe', stream: true });
  const kinds: string[] = [];
  let done = '';
  for await (const event of stream) {
    kinds.push(event.type);
    if (event.type === 'transcript.text.done') done = event.text;
  }
  check(kinds.includes('transcript.text.delta'), `events ${kinds.slice(0, 5).join(',')}`);
  check(kinds.at(-1) === 'transcript.text.done' && /country/i.test(done), `last ${kinds.at(-1)} ${done}`);
});
for (const format of ['json', 'text'] as const) {
  add('openai-node', `translations[${format}]`, async () => {
    const t: unknown = await client.audio.translations.create({ file: await audio(), model: 'whisper-1', response_format: format });
    const text = typeof t === 'string' ? t : (t as { text: string }).text;
    check(text.length > 0, 'empty');
  });
}

const magic: Record<string, (b: Buffer) => boolean> = {
  mp3: (b) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0),
  wav: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF',
  pcm: (b) => b.length > 1000 && b.length % 2 === 0,
  opus: (b) => b.subarray(0, 4).toString('latin1') === 'OggS' && b.includes(Buffer.from('OpusHead')),
  flac: (b) => b.subarray(0, 4).toString('latin1') === 'fLaC',
  aac: (b) => b[0] === 0xff && (b[1]! & 0xf6) === 0xf0,
};
for (const format of ['mp3', 'wav', 'pcm', 'opus', 'flac', 'aac'] as const) {
  add('openai-node', `speech[${format}]`, async () => {
    const res = await client.audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: 'The quick brown fox jumps over the lazy dog.',
      response_format: format,
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    check(magic[format]!(bytes), `not ${format}: ${bytes.subarray(0, 8).toString('hex')} (${res.headers.get('content-type')})`);
  });
}
add('openai-node', 'speech[stream_format=sse]', async () => {
  const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Hello there.', stream_format: 'sse' });
  check(res.headers.get('content-type')?.startsWith('text/event-stream'), `content-type ${res.headers.get('content-type')}`);
  const kinds = (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => (JSON.parse(line.slice(6)) as { type: string }).type);
  check(kinds.includes('speech.audio.delta') && kinds.at(-1) === 'speech.audio.done', `events ${kinds.join(',')}`);
});
add('openai-node', 'speech[streamed body]', async () => {
  const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'One. Two. Three. Four. Five. Six.', response_format: 'pcm' });
  let chunks = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) if (chunk.length > 0) chunks++;
  check(chunks > 1, `${chunks} chunk(s)`);
});
add('openai-node', 'models.list', async () => {
  const ids: string[] = [];
  for await (const model of client.models.list()) {
    check(model.object === 'model' && Number.isInteger(model.created) && typeof model.owned_by === 'string', JSON.stringify(model));
    ids.push(model.id);
  }
  check(ids.includes('whisper-tiny.en'), `ids ${ids.slice(0, 8).join(',')}`);
});
add('openai-node', 'models.retrieve[tts-1]', async () => {
  const model = await client.models.retrieve('tts-1');
  check(model.id === 'tts-1' && model.object === 'model', JSON.stringify(model));
});
add('openai-node', 'models.retrieve[missing]→NotFoundError', async () => {
  try {
    await client.models.retrieve('i-do-not-exist');
  } catch (error) {
    check(error instanceof NotFoundError, `${String(error)}`);
    return;
  }
  throw new Error('expected 404');
});
add('openai-node', 'embeddings[default: SDK asks base64]', async () => {
  // Without encoding_format the Node SDK asks for base64 and decodes float32 itself.
  const res = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'goodbye'] });
  check(res.data.length === 2 && res.data[0]!.embedding.length === 384, `${res.data.length} × ${res.data[0]?.embedding.length}`);
  const norm = Math.hypot(...res.data[0]!.embedding);
  check(Math.abs(norm - 1) < 1e-3, `norm ${norm}`);
});

add('openai-node', 'realtime[OpenAIRealtimeWS, transcription, manual commit]', async () => {
  // Speech at 24 kHz, the rate the session takes: the server's own voice.
  const said = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Ask not what your country can do for you.', response_format: 'pcm' });
  const pcm = Buffer.from(await said.arrayBuffer());
  const { port, hostname } = new URL(base);
  // The SDK always builds a wss:// URL; the server under test speaks plain HTTP on loopback.
  const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { createConnection: () => tcpConnect({ host: hostname, port: Number(port) }) } }, client);
  const seen: string[] = [];
  try {
    const transcript = await new Promise<string>((resolve, reject) => {
      rt.on('error', reject);
      rt.on('event', (event) => {
        seen.push(event.type);
        if (event.type === 'session.updated') {
          for (let at = 0; at < pcm.length; at += 4_800) rt.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 4_800).toString('base64') });
          rt.send({ type: 'input_audio_buffer.commit' });
        }
        if (event.type === 'conversation.item.input_audio_transcription.completed') resolve(event.transcript);
      });
      rt.socket.once('open', () =>
        rt.send({
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'whisper-1', language: 'en' }, turn_detection: null } },
          },
        }),
      );
    });
    check(seen[0] === 'session.created', `events ${seen.slice(0, 4).join(',')}`);
    check(/country/i.test(transcript), `transcript ${JSON.stringify(transcript)}`);
  } finally {
    rt.close();
  }
});

add('openai-node', "embeddings[2048 inputs, the AI SDK's batch]", async () => {
  const input = Array.from({ length: 2048 }, (_, i) => `Passage ${i}: the market ${i % 2 ? 'rose' : 'fell'} on day ${i % 30}.`);
  const res = await client.embeddings.create({ model: 'text-embedding-3-small', input });
  check(res.data.length === 2048 && res.data.every((item, i) => item.index === i && item.embedding.length === 384), `${res.data.length} vectors`);
});

const lt = { apiurl: base, apiKey };
add('libretranslate-npm', 'translate[en→es]', async () => {
  const text: unknown = await translate({ query: 'Hello, how are you?', source: 'en', target: 'es', ...lt });
  check(typeof text === 'string' && text.length > 0 && text !== 'Hello, how are you?', JSON.stringify(text));
});
add('libretranslate-npm', 'translate[auto→es]', async () => {
  const text: unknown = await translate({ query: 'The weather is very nice today and I am going to the beach with my friends.', target: 'es', ...lt });
  check(typeof text === 'string' && text.length > 0, JSON.stringify(text));
});
add('libretranslate-npm', 'translate[array]', async () => {
  const texts: unknown = await translate({ query: ['Good morning', 'Thank you very much'] as unknown as string, source: 'en', target: 'es', ...lt });
  check(Array.isArray(texts) && texts.length === 2 && texts.every((t) => typeof t === 'string' && t.length > 0), JSON.stringify(texts));
});
add('libretranslate-npm', 'translate[wrong key]→no text', async () => {
  const text: unknown = await translate({ query: 'Hello', source: 'en', target: 'es', apiurl: base, apiKey: 'wrong-key-0123456789' });
  check(text === undefined, `a wrong key translated: ${JSON.stringify(text)}`);
});
add('libretranslate-npm', 'translate[unknown target]→TypeError', async () => {
  try {
    await translate({ query: 'Hello', source: 'en', target: 'zz', ...lt });
  } catch (error) {
    check(error instanceof TypeError, String(error));
    return;
  }
  throw new Error('an unknown language was accepted');
});

// npm `translate` 3.1.0, engine "libre": a JSON POST to the URL given, {q, source, target, api_key}.
const libre = Translate({ engine: 'libre', key: apiKey, url: `${base}/translate` } as Parameters<typeof Translate>[0]);
add('translate-npm', 'libre[en→es]', async () => {
  const text = await libre('Hello, how are you?', { from: 'en', to: 'es' });
  check(typeof text === 'string' && text.length > 0 && text !== 'Hello, how are you?', JSON.stringify(text));
});

async function main(): Promise<void> {
  writeFileSync(out, '');
  for (const [suite, name, fn] of cases) {
    if (filter && !`${suite}/${name}`.includes(filter)) continue;
    const started = performance.now();
    const row: Record<string, unknown> = { suite, name, ok: true };
    try {
      await fn();
    } catch (error) {
      row.ok = false;
      row.detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    row.ms = Math.round(performance.now() - started);
    appendFileSync(out, `${JSON.stringify(row)}\n`);
    console.log(`  [${row.ok ? 'ok' : 'FAIL'}] ${suite}/${name}`);
  }
}

await main();
