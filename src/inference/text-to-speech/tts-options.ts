/** Manifest options of the text-to-speech engines (`piper`, `transformers-tts`, `kokoro`), and what GET /v1/models says of their voices. */
import { Type } from '@sinclair/typebox';
import { DTYPES } from '../dtype.js';
import { stringEnum } from '../engine-options.js';
import { SPEECH_FORMATS } from '../types.js';

/** onnxruntime intra-op threads; ORT's default (one per core) when absent. */
const TtsThreads = Type.Optional(Type.Integer({ minimum: 1, maximum: 256 }));

/**
 * About how many words of a sentence without an early clause are synthesised and sent first, so
 * the first audio leaves before the whole sentence is synthesised (splitFirstPiece); 0 cuts only
 * at a short first clause. The default is measured in docs/benchmarks.md ("Text to speech").
 */
const FirstPieceWords = Type.Optional(Type.Integer({ minimum: 0, maximum: 20 }));

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
     * a voice as fast as the CLI on a quiet machine; not spinning, or a bounded spin, is a few
     * percent slower there. A voice sharing its cores with other busy work synthesises clearly
     * faster with `false`, since spinning threads take cores from the ones doing the work. The
     * default is for a server with cores of its own (docs/benchmarks.md, "Text to speech").
     */
    spinning: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1, maximum: 100_000 })], { default: DEFAULT_PIPER_SPINNING }),
    firstPieceWords: FirstPieceWords,
    /**
     * onnxruntime's CPU memory arena: on keeps the buffers of the longest piece synthesised so far
     * for the voice's life (a few hundred MB: pieces are bounded, phoneme-pieces.ts) and saves
     * allocating them each run; off (the default) gives them back after each piece
     * (docs/benchmarks.md, "Text to speech").
     */
    memoryArena: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export const TransformersTtsOptions = Type.Object({ threads: TtsThreads }, { additionalProperties: false });

export const KokoroOptions = Type.Object(
  {
    /** Which weights: onnx/model<suffix>.onnx of that dtype ("q8" → model_quantized.onnx), as download-models installed them. */
    dtype: stringEnum(DTYPES, { default: 'fp32' }),
    threads: TtsThreads,
    firstPieceWords: FirstPieceWords,
  },
  { additionalProperties: false },
);

/** A voice's extra fields in GET /v1/models: every format speak() encodes (the registry's shared encoders), and its speed range. */
export function describeVoice(speed: { min: number; max: number }): () => { formats: string[]; speed: { min: number; max: number } } {
  return () => ({ formats: [...SPEECH_FORMATS], speed });
}
