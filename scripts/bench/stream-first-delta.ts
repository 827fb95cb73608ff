/**
 * Time to the first streamed text of a long file against the whole request (issue 41, "streaming
 * keeps its promise"):
 *
 *   EVAL_SPEECH_DIR=… tsx scripts/bench/stream-first-delta.ts [--model whisper-tiny.en] [--seconds 121] [--rounds 3] [--threads N]
 *
 * The file: every English clip of the shared speech set (EVAL_SPEECH_DIR) joined in file order
 * with 1.5 s of silence, repeated to `--seconds` (scripts/eval/lib/long-speech.ts), as
 * long-speech.ts builds it. The product's transcriber (manifest → engine → ASR worker) with
 * default options (VAD on past 30 s, its windows batched) runs it, after a warm-up, in turns:
 * - streamed: `onSegments` given, as `stream=true` gives it: the seconds at which each report
 *   (each window's `transcript.text.delta`) arrived, and the whole;
 * - plain: no `onSegments`, the whole only (what streaming costs the total).
 * Prints the means over rounds with the load average.
 */
import { parseArgs } from 'node:util';
import { loadAverage } from '../eval/lib/load-average.js';
import { decodeClipsOnce, joinClips } from '../eval/lib/long-speech.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { readSpeechClips, speechDir } from '../eval/lib/speech-clips.js';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'whisper-tiny.en' },
    seconds: { type: 'string', default: '121' },
    rounds: { type: 'string', default: '3' },
    threads: { type: 'string' },
  },
});
const rounds = Number(args.rounds);
const decoded = await decodeClipsOnce(await readSpeechClips());
const audio = joinClips(decoded, { targetSeconds: Number(args.seconds), gapSeconds: 1.5 });
const seconds = audio.samples.length / audio.sampleRate;
const { transcriber } = await loadTranscriber({ modelId: args.model!, options: args.threads ? { threads: Number(args.threads) } : {} });
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
try {
  console.log(`stream first delta: ${args.model}, ${seconds.toFixed(1)} s of English clips from ${speechDir()}, default options, rounds ${rounds}`);
  await transcriber.transcribe({ samples: audio.samples.slice(0, 5 * audio.sampleRate), sampleRate: audio.sampleRate });
  const streamed: Array<{ reports: number[]; total: number }> = [];
  const plain: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const reports: number[] = [];
    const started = performance.now();
    await transcriber.transcribe(
      { samples: audio.samples.slice(), sampleRate: audio.sampleRate },
      { onSegments: () => reports.push((performance.now() - started) / 1000) },
    );
    streamed.push({ reports, total: (performance.now() - started) / 1000 });
    const plainStart = performance.now();
    await transcriber.transcribe({ samples: audio.samples.slice(), sampleRate: audio.sampleRate });
    plain.push((performance.now() - plainStart) / 1000);
  }
  for (const [round, { reports, total }] of streamed.entries()) {
    console.log(
      `round ${round + 1}: reports at ${reports.map((at) => at.toFixed(2)).join(', ')} s; streamed total ${total.toFixed(2)} s; plain total ${plain[round]!.toFixed(2)} s`,
    );
  }
  const first = mean(streamed.map(({ reports }) => reports[0] ?? Number.NaN));
  const total = mean(streamed.map(({ total }) => total));
  console.log(
    `mean: first delta ${first.toFixed(2)} s of ${total.toFixed(2)} s streamed (${((100 * first) / total).toFixed(0)}%), ` +
      `${mean(streamed.map(({ reports }) => reports.length)).toFixed(1)} deltas; plain (no stream) total ${mean(plain).toFixed(2)} s; load average ${loadAverage()}`,
  );
} finally {
  await transcriber.dispose();
}
