/**
 * Turns an AudioUpload into what a Transcriber takes, validating the parameters the two
 * speech-to-text route files share.
 */
import type { Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import type { EncodedAudio, TranscribeOptions } from '../../../inference/types.js';
import type { AudioUpload } from './audio-upload.js';

export interface TranscriptionRequest {
  modelId: string;
  audio: EncodedAudio;
  options: TranscribeOptions;
}

const TASKS = ['transcribe', 'translate'] as const;

export function toTranscriptionRequest(upload: AudioUpload, limits: Limits, extra: TranscribeOptions = {}): TranscriptionRequest {
  const modelId = upload.fields.model;
  if (!modelId) {
    throw new ValidationError('"model" is required: pass ?model=, an X-Model header, or a multipart "model" field');
  }
  const task = upload.fields.task;
  if (task !== undefined && !(TASKS as readonly string[]).includes(task)) {
    throw new ValidationError('"task" must be "transcribe" or "translate"');
  }
  const language = upload.fields.language;
  if (language !== undefined && language.length > 32) throw new ValidationError('"language" is too long');
  return {
    modelId,
    audio: { bytes: upload.bytes, contentType: upload.contentType, maxSeconds: limits.maxAudioSeconds },
    options: { language, task: task as TranscribeOptions['task'], ...extra },
  };
}
