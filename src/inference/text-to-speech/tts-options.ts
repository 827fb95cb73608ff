/** Manifest options of the text-to-speech engines (`piper`, `transformers-tts`), and what GET /v1/models says of their voices. */
import { Type } from '@sinclair/typebox';
import { SPEECH_FORMATS } from '../types.js';

/** onnxruntime intra-op threads; ORT's default (one per core) when absent. */
const TtsThreads = Type.Optional(Type.Integer({ minimum: 1, maximum: 256 }));

/** A voice's `spinning` when the manifest does not set it (PiperOptions.spinning says why). */
export const DEFAULT_PIPER_SPINNING = true;

export const PiperOptions = Type.Object(
  {
    /** The voice's `.onnx` file, when the folder holds more than one. */
    onnxFile: Type.Optional(Type.String({ pattern: '^[^/\\\\]+\\.onnx$' })),
    threads: TtsThreads,
    /**
     * Let ORT's idle intra-op threads spin between operators: `true` (the default, as the piper
     * CLI and onnxruntime do), `false`, or at most this many microseconds. Spinning is what keeps
     * a voice as fast as the CLI on a quiet machine (joe voice per sentence: 0.96–0.98× the CLI
     * spinning, 1.02–1.04× not, 1.01–1.02× bounded to 300–1000 µs). A voice sharing its cores
     * with other busy work synthesises faster with `false` (beside one busy process: 0.79–0.82×
     * the CLI against 0.96–0.98× spinning).
     */
    spinning: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1, maximum: 100_000 })], { default: DEFAULT_PIPER_SPINNING }),
  },
  { additionalProperties: false },
);

export const TransformersTtsOptions = Type.Object({ threads: TtsThreads }, { additionalProperties: false });

/** A voice's extra fields in GET /v1/models: every format speak() encodes (the registry's shared encoders), and its speed range. */
export function describeVoice(speed: { min: number; max: number }): () => { formats: string[]; speed: { min: number; max: number } } {
  return () => ({ formats: [...SPEECH_FORMATS], speed });
}
