/** Manifest options of the text-to-speech engines (`piper`, `transformers-tts`), and what GET /v1/models says of their voices. */
import { Type } from '@sinclair/typebox';
import { SPEECH_FORMATS } from '../types.js';

/** onnxruntime intra-op threads; ORT's default (one per core) when absent. */
export const TtsThreads = Type.Optional(Type.Integer({ minimum: 1, maximum: 256 }));

export const PiperOptions = Type.Object(
  {
    /** The voice's `.onnx` file, when the folder holds more than one. */
    onnxFile: Type.Optional(Type.String({ pattern: '^[^/\\\\]+\\.onnx$' })),
    threads: TtsThreads,
    /**
     * Let ORT's idle intra-op threads spin between operators: `true` as the piper CLI does, or at
     * most this many microseconds. Off by default: on a busy machine spinning threads take cores
     * from the ones working (beside one busy process, the joe voice ran 26 % slower spinning and
     * 11 % slower with 100 µs); on a quiet one, spinning is 3–6 % faster (README, text to speech).
     */
    spinning: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1, maximum: 100_000 })], { default: false }),
  },
  { additionalProperties: false },
);

export const TransformersTtsOptions = Type.Object({ threads: TtsThreads }, { additionalProperties: false });

/** A voice's extra fields in GET /v1/models: every format speak() encodes (the registry's shared encoders), and its speed range. */
export function describeVoice(speed: { min: number; max: number }): () => { formats: string[]; speed: { min: number; max: number } } {
  return () => ({ formats: [...SPEECH_FORMATS], speed });
}
