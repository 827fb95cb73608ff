/** Manifest options of the text-to-speech engines (`piper`, `transformers-tts`). */
import { Type } from '@sinclair/typebox';

/** onnxruntime intra-op threads; ORT's default (one per core) when absent. */
export const TtsThreads = Type.Optional(Type.Integer({ minimum: 1, maximum: 256 }));

export const PiperOptions = Type.Object(
  {
    /** The voice's `.onnx` file, when the folder holds more than one. */
    onnxFile: Type.Optional(Type.String({ pattern: '^[^/\\\\]+\\.onnx$' })),
    threads: TtsThreads,
  },
  { additionalProperties: false },
);

export const TransformersTtsOptions = Type.Object({ threads: TtsThreads }, { additionalProperties: false });
