/**
 * What a multilingual request without a language costs against one that names it: the same short
 * clips through the product's transcriber (manifest → engine → ASR worker), each sent both ways
 * in interleaved rounds, as json (the transformers.js pipeline) and as verbose_json (our window
 * decoder). Identification encodes the first window, so before the encoder memo
 * (speech-to-text/whisper-encoder-memo.ts) a request without a language ran the encoder twice.
 *
 *   npx tsx scripts/bench/language-id-cost.ts [--model whisper-base-pypi] [--rounds 3]
 *
 * Clips: the repository's test/fixtures/speech (en, es, fr, de). Prints CPU seconds of this
 * process (the worker threads included) per side and their ratio, with the load average.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EncodedAudio } from '../../src/inference/types.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';

const { values } = parseArgs({ options: { model: { type: 'string', default: 'whisper-base-pypi' }, rounds: { type: 'string', default: '3' } } });
const CLIPS: [file: string, language: string, contentType: string][] = [
  ['en_jfk.mp3', 'en', 'audio/mpeg'],
  ['en_librivox_sense_and_sensibility_0880.wav', 'en', 'audio/wav'],
  ['es_fleurs_002.ogg', 'es', 'audio/ogg'],
  ['fr_fleurs_000.ogg', 'fr', 'audio/ogg'],
  ['de_fleurs_000.ogg', 'de', 'audio/ogg'],
];
const SPEECH_DIR = join(import.meta.dirname, '../../test/fixtures/speech');

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const { transcriber } = await loadTranscriber({ modelId: values.model });
const audio = (file: string, contentType: string): EncodedAudio => ({ bytes: readFileSync(join(SPEECH_DIR, file)), contentType, maxSeconds: 600 });
await transcriber.transcribe(audio(CLIPS[0]![0], CLIPS[0]![2]), { language: 'en' }); // warm-up
console.log(`model ${values.model}, ${CLIPS.length} clips × json and verbose_json, load ${loadAverage()}`);
const totals = { detected: 0, named: 0 };
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [file, language, contentType] of CLIPS) {
    for (const segments of [false, true]) {
      // Alternate which side goes first, so neither always follows the other's warm caches.
      const sides = round % 2 === 0 ? (['detected', 'named'] as const) : (['named', 'detected'] as const);
      for (const side of sides) {
        const before = cpuSeconds();
        const result = await transcriber.transcribe(audio(file, contentType), { segments, ...(side === 'named' ? { language } : {}) });
        totals[side] += cpuSeconds() - before;
        if (side === 'detected' && result.language !== language) console.log(`  ${file}: detected ${result.language}, not ${language}`);
      }
    }
  }
}
const per = (seconds: number) => (seconds / Number(values.rounds) / CLIPS.length / 2).toFixed(3);
console.log(`CPU per request: no language ${per(totals.detected)} s, language named ${per(totals.named)} s: ${(totals.detected / totals.named).toFixed(2)}×`);
console.log(`load ${loadAverage()}`);
await transcriber.dispose();
