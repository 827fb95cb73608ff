import Router from '@koa/router';
import type { Limits } from '../../config/load-config.js';
import type { ModelRegistry } from '../../inference/model-registry.js';
import { createAdmission, type Admission } from '../admission.js';
import { classificationRoutes } from './v1/classification-routes.js';
import { modelRoutes } from './v1/model-routes.js';
import { openaiAudioRoutes } from './v1/openai-audio-routes.js';
import { openaiSpeechRoutes } from './v1/openai-speech-routes.js';
import { createSpeechResponder, speechRoutes, type SpeechResponder } from './v1/speech-routes.js';
import { transcriptionRoutes } from './v1/transcription-routes.js';
import { translationRoutes } from './v1/translation-routes.js';

export interface V1Deps {
  models: ModelRegistry;
  limits: Limits;
}

export interface V1RouteDeps extends V1Deps {
  /** Goes first on every inference route, before the body is read (see admission.ts). */
  admit: Admission;
  /** Answers both speech routes, so they share one MP3 encoder worker. */
  speak: SpeechResponder;
}

export function createV1Router(options: V1Deps): Router {
  const deps: V1RouteDeps = { ...options, admit: createAdmission(options.limits.maxPendingRequests), speak: createSpeechResponder(options) };
  // The API key is checked before routing, in createApp (see api-boundary.ts).
  const router = new Router({ prefix: '/v1', sensitive: true });
  for (const addRoutes of [modelRoutes, classificationRoutes, translationRoutes, transcriptionRoutes, speechRoutes, openaiSpeechRoutes, openaiAudioRoutes]) {
    addRoutes(router, deps);
  }
  return router;
}
