/**
 * OpenAI's OpenAPI document against /v1/audio/translations: every format and field on the
 * multilingual whisper-base (~2 CPU-s a request), so in the slow suite; the formats' rendering is
 * the transcriptions' one, which the fast suite checks (openai-spec/conformance-suite.ts).
 */
import { describeSpecConformance } from './openai-spec/conformance-suite.js';

describeSpecConformance("OpenAI's OpenAPI document: translations conform (real whisper-base)", ['/audio/translations']);
