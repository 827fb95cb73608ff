/**
 * What the decoding options cost and do to accuracy, whisper-tiny.en, the product's transcriber
 * (manifest → engine → ASR worker):
 *
 *   tsx scripts/bench/decoding-options.ts [--rounds 3] [--minutes 2]
 *
 * On the English clips of the shared speech set (EVAL_SPEECH_DIR), each uploaded as its own
 * request, and on one long file (the clips joined with 1.5 s silences, scripts/eval/lib/long-speech.ts):
 * - default: no option (short clips take transformers.js's pipeline, long audio our window decoder);
 * - temperature 0: our window decoder, greedy, no fallback (what any option costs a short clip);
 * - prompt: a 223-token prompt (the most any window reads) of text unrelated to the audio;
 * - prompt + hotwords: both, sharing the 223-token budget.
 * Rounds interleave the variants; the best wall time of each is printed, with its ratio to the
 * default's, the WER (normalised), and the load average.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { encodeWav } from '../../src/audio/encode-wav.js';
import type { DecodingOptions } from '../../src/inference/types.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { decodeClipsOnce, joinClips, LONG_SPEECH_RATE } from '../eval/lib/long-speech.js';
import { normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';
import { corpusWer, wordErrors, type WerResult } from '../eval/lib/wer.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, minutes: { type: 'string', default: '2' } } });
const rounds = Number(args.rounds);

// Prose with no word of the clips: a prompt that only costs.
const LONG_PROMPT = Array.from(
  { length: 40 },
  (_, index) => `Section ${index + 1} of the quarterly maintenance schedule covers pumps, valves and gauges.`,
).join(' ');
const VARIANTS: Array<[name: string, decoding: DecodingOptions | undefined]> = [
  ['default', undefined],
  ['temperature 0', { temperatures: [0] }],
  ['prompt (223 tokens)', { prompt: LONG_PROMPT }],
  ['prompt + hotwords', { prompt: LONG_PROMPT, hotwords: 'pumps, valves, gauges' }],
];

const clips = await decodeClipsOnce(await readSpeechClips());
const long = joinClips(clips, { targetSeconds: Number(args.minutes) * 60, gapSeconds: 1.5 });
const { transcriber } = await loadTranscriber({ modelId: 'whisper-tiny.en' });
const wav = (samples: Float32Array) => ({ bytes: encodeWav({ samples, sampleRate: LONG_SPEECH_RATE }), contentType: 'audio/wav', maxSeconds: 3600 });
await transcriber.transcribe(wav(clips[0]!.samples)); // warm-up

const inputs: Array<[name: string, items: Array<{ samples: Float32Array; reference: string }>]> = [
  [`${clips.length} short clips`, clips],
  [`${(long.samples.length / LONG_SPEECH_RATE / 60).toFixed(1)}-min file`, [{ samples: long.samples, reference: long.reference }]],
];
const loads: number[] = [];
for (const [inputName, items] of inputs) {
  const best = new Map<string, { seconds: number; wer: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, decoding] of VARIANTS) {
      const results: WerResult[] = [];
      const started = performance.now();
      for (const item of items) {
        const transcript = await transcriber.transcribe(wav(item.samples), decoding ? { decoding } : {});
        results.push(wordErrors(normalizeTranscript(item.reference), normalizeTranscript(transcript.text)));
      }
      const seconds = (performance.now() - started) / 1000;
      loads.push(loadavg()[0]!);
      const previous = best.get(name);
      if (!previous || seconds < previous.seconds) best.set(name, { seconds, wer: corpusWer(results) });
    }
  }
  const baseline = best.get('default')!.seconds;
  console.log(`\n${inputName}, best of ${rounds}:`);
  for (const [name, { seconds, wer }] of best) {
    console.log(`  ${name.padEnd(22)} ${seconds.toFixed(2).padStart(7)} s  ${(seconds / baseline).toFixed(2)}×  WER ${wer.toFixed(3)}`);
  }
}
console.log(`\nload average (1 min) while running: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`);
await transcriber.dispose();
