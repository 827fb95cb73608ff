/** OpenAI's OpenAPI document against every operation we serve but translations (openai-spec/conformance-suite.ts). */
import { describeSpecConformance } from './openai-spec/conformance-suite.js';

describeSpecConformance("OpenAI's OpenAPI document: our answers and fields conform (real models)", [
  '/audio/transcriptions',
  '/audio/speech',
  '/embeddings',
  '/models',
  '/models/{model}',
]);
