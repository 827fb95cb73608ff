/**
 * Checks a running server through a TLS reverse proxy (deploy/nginx.conf, deploy/Caddyfile):
 * /healthz, an upload transcribed, a transcription streamed as SSE event by event, streamed speech,
 * and a live transcription over the proxied WebSocket (/v1/realtime). docs/operations.md ("What was
 * verified here") has the run. Needs whisper-tiny.en, silero-vad-v6 and the Piper voice.
 *
 *   API_KEY=lis_… NODE_TLS_REJECT_UNAUTHORIZED=0 node scripts/container/proxy-check.mjs https://127.0.0.1:8443
 */
import { readFile } from 'node:fs/promises';
import WebSocket from 'ws';

const base = process.argv[2] ?? 'https://127.0.0.1:8443';
const auth = { Authorization: `Bearer ${process.env.API_KEY}` };
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

const health = await fetch(`${base}/healthz`);
check(health.status === 200 && (await health.text()) === 'ok', `GET /healthz through the proxy: ${health.status}`);

const SPEECH = 'And so, my fellow Americans, ask not what your country can do for you; ask what you can do for your country. ';

const jfk = new Blob([await readFile(new URL('../../samples/jfk.mp3', import.meta.url))], { type: 'audio/mpeg' });
const form = new FormData();
form.set('model', 'whisper-tiny.en');
form.set('file', jfk, 'jfk.mp3');
const plain = await (await fetch(`${base}/v1/audio/transcriptions`, { method: 'POST', headers: auth, body: form })).json();
check(/ask not what your country/i.test(plain.text ?? ''), `transcription upload: ${JSON.stringify(plain.text)}`);

// SSE: a transcription streamed (one window here: its events come together at the end)…
form.set('stream', 'true');
const sse = await fetch(`${base}/v1/audio/transcriptions`, { method: 'POST', headers: auth, body: form });
const events = await sse.text();
check(
  sse.headers.get('content-type')?.startsWith('text/event-stream') === true && events.includes('transcript.text.done'),
  `transcription as SSE: ${sse.headers.get('content-type')}, ${events.match(/^data: /gm)?.length ?? 0} events`,
);

// …and speech streamed as SSE, sentence by sentence: its events must reach the client spread out
// as each sentence is synthesised, not held back by the proxy until the answer ends.
const started = Date.now();
const speechEvents = await fetch(`${base}/v1/audio/speech`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: SPEECH.repeat(6), response_format: 'pcm', stream_format: 'sse' }),
});
const arrivals = [];
for await (const chunk of speechEvents.body) {
  for (const _ of Buffer.from(chunk).toString().matchAll(/"type":"speech\.audio\.delta"/g)) arrivals.push(Date.now() - started);
}
const spread = arrivals.length > 0 ? arrivals[arrivals.length - 1] - arrivals[0] : 0;
check(arrivals.length >= 3 && spread >= 200, `speech SSE unbuffered: ${arrivals.length} deltas, at ms ${arrivals.join(', ')}`);

// Streamed speech: 24-kHz PCM, also what the realtime session below is fed.
const speech = await fetch(`${base}/v1/audio/speech`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'Ask not what your country can do for you.', response_format: 'pcm' }),
});
const pcm = Buffer.concat([Buffer.from(await speech.arrayBuffer()), Buffer.alloc(24_000 * 2)]);
check(speech.status === 200 && pcm.length > 24_000 * 2 * 2, `speech: ${speech.status}, ${pcm.length} bytes of PCM`);

const transcript = await new Promise((resolve) => {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/realtime?intent=transcription`, { headers: auth });
  const timer = setTimeout(() => {
    ws.terminate();
    resolve('(timed out)');
  }, 120_000);
  ws.on('message', async (data) => {
    const event = JSON.parse(data.toString());
    if (event.type === 'session.updated') {
      for (let at = 0; at < pcm.length; at += 9600) {
        ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + 9600).toString('base64') }));
        await new Promise((done) => setTimeout(done, 50));
      }
    }
    if (event.type === 'conversation.item.input_audio_transcription.completed') {
      clearTimeout(timer);
      ws.close();
      resolve(event.transcript);
    }
    if (event.type === 'error') console.error(event.error);
  });
  ws.on('error', (error) => {
    clearTimeout(timer);
    resolve(`(${error.message})`);
  });
  ws.on('open', () =>
    ws.send(
      JSON.stringify({
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'whisper-tiny.en', language: 'en' } } },
        },
      }),
    ),
  );
});
check(/country/i.test(transcript), `realtime over the proxied WebSocket: ${JSON.stringify(transcript)}`);

console.log(failures.length === 0 ? 'PASS' : `FAIL: ${failures.length}`);
process.exitCode = failures.length === 0 ? 0 : 1;
