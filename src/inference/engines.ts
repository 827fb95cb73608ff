/**
 * Engine table: manifest `engine` name → how to load it. Adding an engine is one line here
 * and one module under src/inference/<task>/.
 */
import type { Engine } from './engine.js';
import { sentenceEmbeddingEngine } from './embeddings/sentence-embedding-engine.js';
import { sileroVadEngine } from './speech-to-text/vad/silero-vad-engine.js';
import { transformersAsrEngine } from './speech-to-text/transformers-asr-engine.js';
import { kokoroEngine } from './text-to-speech/kokoro-engine.js';
import { piperEngine } from './text-to-speech/piper-engine.js';
import { transformersTtsEngine } from './text-to-speech/transformers-tts-engine.js';
import { embeddingClassifier } from './text-classification/embedding-classifier.js';
import { transformersTextClassification } from './text-classification/transformers-text-classification.js';
import { transformersZeroShot } from './text-classification/transformers-zero-shot.js';
import { apertiumEngine } from './translation/apertium-engine.js';
import { transformersTranslationEngine } from './translation/transformers-translation-engine.js';

export const ENGINES: Readonly<Record<string, Engine>> = Object.freeze({
  'transformers-text-classification': transformersTextClassification,
  'transformers-zero-shot': transformersZeroShot,
  'embedding-classifier': embeddingClassifier,
  piper: piperEngine,
  'transformers-tts': transformersTtsEngine,
  kokoro: kokoroEngine,
  'transformers-asr': transformersAsrEngine,
  'silero-vad': sileroVadEngine,
  apertium: apertiumEngine,
  'transformers-translation': transformersTranslationEngine,
  'sentence-embedding': sentenceEmbeddingEngine,
});
