/**
 * `npm run bench:live`: live transcription latency over /v1/realtime on a real server.
 *
 * The shared English clips are joined into one stream with 1.5 s of silence between them (as a
 * speaker pausing between sentences), converted to 24-kHz PCM16 and sent in 100-ms appends at
 * real-time pace (or `--pace N` times faster) to a transcription session with server VAD.
 * For each turn the server finds, latency is measured from the moment the client had sent the
 * audio up to the turn's end (`speech_stopped.audio_end_ms`) to the arrival of its
 * `conversation.item.input_audio_transcription.completed`; adding the session's silence duration
 * (500 ms by default) gives the time from the end of speech. Also printed: turns vs clips, and
 * the WER of all transcripts joined against the joined references.
 *
 *   tsx scripts/bench/realtime.ts [--model whisper-tiny.en] [--pace 1] [--gap-ms 1500]
 *
 * Env: MODELS_DIR (default models), EVAL_SPEECH_DIR. 127.0.0.1 only, bounded in time.
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { percentile, startServer } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { modelsDir } from '../eval/lib/load-transcriber.js';
import { normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';
import { wordErrors } from '../eval/lib/wer.js';

const RATE = 24_000;
const CHUNK_MS = 100;
const SILENCE_DURATION_MS = 500;

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'whisper-tiny.en' },
    pace: { type: 'string', default: '1' },
    'gap-ms': { type: 'string', default: '1500' },
  },
});
const pace = Math.max(0.5, Math.min(20, Number(args.pace)));
const gapSamples = Math.round((Number(args['gap-ms']) * RATE) / 1000);

const clips = (await readSpeechClips()).filter((clip) => clip.bytes !== undefined);
const parts: Float32Array[] = [];
for (const clip of clips) {
  parts.push((await decodeAudio(clip.bytes!, { sampleRate: RATE, maxSeconds: 120 })).samples, new Float32Array(gapSamples));
}
const total = parts.reduce((sum, part) => sum + part.length, 0);
const pcm = Buffer.alloc(total * 2);
let offset = 0;
for (const part of parts) for (const x of part) pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x * 32767))), offset++ * 2);
const seconds = total / RATE;
console.log(`${clips.length} clips joined with ${args['gap-ms']} ms gaps: ${seconds.toFixed(1)} s, sent at ${pace}× real time; load average ${loadAverage()}`);

const server = await startServer({ modelsDir: modelsDir() });
try {
  const ws = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription&model=${encodeURIComponent(args.model!)}`, {
    headers: { Authorization: `Bearer ${server.apiKey}` },
  });
  const stopped = new Map<string, number>();
  const completed: { itemId: string; transcript: string; at: number }[] = [];
  const errors: unknown[] = [];
  ws.on('message', (data) => {
    const event = JSON.parse(data.toString()) as { type: string; item_id: string; audio_end_ms: number; transcript: string; error?: unknown };
    if (event.type === 'input_audio_buffer.speech_stopped') stopped.set(event.item_id, event.audio_end_ms);
    if (event.type === 'conversation.item.input_audio_transcription.completed')
      completed.push({ itemId: event.item_id, transcript: event.transcript, at: performance.now() });
    if (event.type === 'error' || event.type.endsWith('.failed')) errors.push(event);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

  // sentAt[k]: when the client had sent the first (k+1)·100 ms of audio.
  const sentAt: number[] = [];
  const chunkBytes = (RATE * 2 * CHUNK_MS) / 1000;
  const start = performance.now();
  for (let k = 0; k * chunkBytes < pcm.length; k++) {
    const due = start + (k * CHUNK_MS) / pace;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.subarray(k * chunkBytes, (k + 1) * chunkBytes).toString('base64') }));
    sentAt.push(performance.now());
  }
  const deadline = performance.now() + 60_000;
  while (completed.length < stopped.size || performance.now() < start + (seconds * 1000) / pace + 2_000) {
    if (performance.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  ws.close();

  const latencies = completed
    .filter(({ itemId }) => stopped.has(itemId))
    .map(({ itemId, at }) => at - sentAt[Math.min(sentAt.length - 1, Math.ceil(stopped.get(itemId)! / CHUNK_MS) - 1)]!);
  const hypothesis = normalizeTranscript(completed.map(({ transcript }) => transcript).join(' '));
  const reference = normalizeTranscript(clips.map((clip) => clip.reference).join(' '));
  console.log(`turns: ${stopped.size} (clips: ${clips.length}); transcripts: ${completed.length}; errors: ${errors.length}`);
  console.log(`WER of the joined transcripts: ${wordErrors(reference, hypothesis).wer.toFixed(3)}`);
  console.log(
    `latency, turn end → .completed: median ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms` +
      ` (from the end of speech add the ${SILENCE_DURATION_MS} ms silence duration: median ${(percentile(latencies, 50) + SILENCE_DURATION_MS).toFixed(0)} ms)`,
  );
  console.log(`load average after: ${loadAverage()}`);
  if (errors.length) console.log('errors:', JSON.stringify(errors.slice(0, 3)));
} finally {
  await server.stop();
}
