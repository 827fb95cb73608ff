/**
 * SPEC speech to text: POST /v1/transcriptions and POST /v1/completions (the SPEC names both
 * paths for one operation; they behave identically). Answers
 * `{id, object: "transcript", created, model, transcript}`.
 *
 * The SPEC does not say how the model travels with a raw audio body, so a request that names
 * none (no `?model=`, `X-Model` or form field) is transcribed by the default speech-to-text model
 * (the first installed, `default` ones first), which the answer's `model` names.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { ValidationError } from '../../../errors.js';
import { declareRoute, jsonResponse, type DocumentedRouter } from '../../operation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { audioUploadReader } from './audio-upload.js';
import { fileField, toTranscriptionRequest, transcriptionFields, transcriptionOperation } from './transcription-request.js';
import { Text } from '../../schema-types.js';
import { requestSignal } from '../../request-signal.js';
import { respondWithTranscriptEvents, transcriptEventStream } from './transcription-stream.js';

/** The model is optional here, unlike on the OpenAI routes. */
const specFields = {
  ...transcriptionFields,
  model: Type.Optional(Text('Speech-to-text model id; default: the first installed one (`default` models first), named in the answer’s `model`.')),
};
const TranscriptionForm = Type.Object({ file: fileField, ...specFields }, { $id: 'TranscriptionForm' });
const Transcript = Type.Object(
  {
    id: Type.String({ description: 'Transcript id.' }),
    object: Type.Literal('transcript'),
    created: Type.Integer({ description: 'Unix time in seconds.' }),
    model: Type.String({ description: 'The model used.' }),
    transcript: Type.String({ description: 'The transcribed text.' }),
  },
  { $id: 'Transcript' },
);

export function transcriptionRoutes(router: DocumentedRouter, { models, limits, admit, validator }: V1RouteDeps): void {
  const readAudioUpload = audioUploadReader(limits.maxAudioBytes);
  const parseFields = validator.compile(Type.Object(specFields));
  const handler = async (ctx: Context) => {
    if (ctx.path === '/v1/completions' && ctx.is('application/json')) {
      // OpenAI clients send text completions here; say what this path is instead of a bare 415.
      throw new ValidationError(
        `POST ${ctx.path} transcribes audio (this server's speech-to-text; it serves no text completions): send the audio as the body (audio/mpeg, audio/wav, …) with ?model=, or as multipart/form-data with "file" and "model"`,
      );
    }
    const upload = await readAudioUpload(ctx);
    const fields = parseFields(upload.fields);
    const request = toTranscriptionRequest(upload, { ...fields, model: fields.model ?? (await models.defaultModel('speech-to-text')) }, limits);
    // An alias (whisper-1) answers with the model that actually ran.
    const modelId = await models.resolve(request.modelId, 'speech-to-text');
    const transcriber = await models.get(request.modelId, 'speech-to-text');
    if (request.stream) return respondWithTranscriptEvents(ctx, transcriber, request.audio, request.options);
    const result = await transcriber.transcribe(request.audio, { ...request.options, signal: requestSignal(ctx) });
    ctx.body = {
      id: `trsc_${randomUUID().replaceAll('-', '')}`,
      object: 'transcript',
      created: Math.floor(Date.now() / 1000),
      model: modelId,
      transcript: result.text,
    };
  };
  const transcript = jsonResponse('The transcript.', Transcript);
  const ok = {
    ...transcript,
    description: 'The transcript; with `stream=true`, its text as server-sent events.',
    content: { ...(transcript.content as object), ...transcriptEventStream },
  };
  const operations: [path: string, summary: string, description: string][] = [
    [
      '/transcriptions',
      'Transcribe audio (JavaScript client form)',
      'Send the audio as the raw body (`audio/mpeg`, or WAV, FLAC, Ogg) with the model in `?model=` or `X-Model`, or as multipart/form-data with `file` (or `audio`) and `model`. Without a model, the default speech-to-text model answers and `model` names it. Identical to POST /v1/completions.',
    ],
    ['/completions', 'Transcribe audio (raw request form)', 'Identical to POST /v1/transcriptions; SPEC names both paths.'],
  ];
  for (const [path, summary, description] of operations)
    declareRoute(router, transcriptionOperation(path, summary, description, TranscriptionForm, ok, limits, specFields), admit('speech-to-text'), handler);
}
