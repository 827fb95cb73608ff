/** Which VAD filter, if any, a transcription request runs in the ASR worker (main-thread side). */
import { ModelNotInstalledError } from '../../../errors.js';
import type { TranscribeOptions } from '../../types.js';
import type { VadFilterRequest } from './vad-filter.js';

/** The manifest id speech-to-text runs for `vad_filter`, and how to install it. */
export const DEFAULT_VAD_MODEL = 'silero-vad-v6';
export const VAD_INSTALL_COMMAND = 'npm run download-models -- silero-vad-v6';

/**
 * Asked for (`vadFilter: true`): always on, and a 503 naming the install command when the VAD
 * model is absent. Not said: on for long audio when the model is there (decided in the worker,
 * which knows the duration). `false`: off.
 */
export function vadFilterRequest(options: TranscribeOptions, vadInstalled: boolean): VadFilterRequest | undefined {
  if (options.vadFilter === false) return undefined;
  if (!vadInstalled) {
    if (options.vadFilter === true) throw new ModelNotInstalledError(DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND);
    return undefined;
  }
  return { always: options.vadFilter === true, options: options.vad ?? {} };
}
