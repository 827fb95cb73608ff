import type { Limits } from '../../config/load-config.js';
import type { Models } from '../scoped-models.js';
import type { Admission } from '../admission.js';
import { documentedRouter, type DocumentedRouter, type Operation } from '../operation.js';
import type { RequestValidator } from '../validation.js';
import { classificationRoutes } from './v1/classification-routes.js';
import { embeddingsRoutes } from './v1/embeddings-routes.js';
import { modelRoutes } from './v1/model-routes.js';
import { openaiAudioRoutes } from './v1/openai-audio-routes.js';
import { openaiSpeechRoutes } from './v1/openai-speech-routes.js';
import { createSpeechResponder, speechRoutes, type SpeechResponder } from './v1/speech-routes.js';
import { transcriptionRoutes } from './v1/transcription-routes.js';
import { translationRoutes } from './v1/translation-routes.js';

interface V1Deps {
  models: Models;
  limits: Limits;
  /**
   * Goes first on every inference route, before the body is read (admission.ts); shared with the
   * other routers that run models, so each task has one bound for the whole app.
   */
  admit: Admission;
  /** The app's one validator: compiles each route's request schema once, when the router is built. */
  validator: RequestValidator;
}

export interface V1RouteDeps extends V1Deps {
  /** Answers both speech routes, so they share one MP3 encoder worker. */
  speak: SpeechResponder;
}

/** How the /v1 router matches paths; the WebSocket upgrade (realtime-endpoint.ts) matches its path alike. */
export const V1_ROUTER_OPTIONS = Object.freeze({ prefix: '/v1', sensitive: true });

/** Declares each /v1 route on a new router, its Operation added to `operations`. */
export function createV1Router(options: V1Deps, operations: Operation[] = []): DocumentedRouter {
  const deps: V1RouteDeps = {
    ...options,
    speak: createSpeechResponder(options),
  };
  // The API key is checked before routing, in createApp (see api-boundary.ts).
  const router = documentedRouter({ ...V1_ROUTER_OPTIONS }, operations);
  for (const addRoutes of [
    modelRoutes,
    classificationRoutes,
    embeddingsRoutes,
    translationRoutes,
    transcriptionRoutes,
    speechRoutes,
    openaiSpeechRoutes,
    openaiAudioRoutes,
  ]) {
    addRoutes(router, deps);
  }
  return router;
}
