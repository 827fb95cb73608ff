/** What the main thread (token-decoder.ts) and token-decoder-worker.ts exchange. */
import type { CallContext } from '../worker/worker-api.js';
import { workerModule } from '../worker/worker-api.js';
import type { TokenEncoding } from './token-encodings.js';

interface DecodeRequest {
  encoding: TokenEncoding;
  /** Every input's ids end to end (moved, not copied): input i is ids[ends[i - 1] ?? 0 .. ends[i]). */
  ids: Int32Array;
  ends: Uint32Array;
  /** Stop, answering `tooLong`, once the texts together hold more characters than this. */
  maxCharacters: number;
}

/** The texts, or the first reason there are none: facts the caller phrases for its client. */
export type DecodeResult =
  | { texts: string[] }
  /** `ids[input][position]` is `id`, which is no token of the encoding. */
  | { unknownId: { input: number; position: number; id: number } }
  /** The first `inputs` texts already hold `characters`, more than maxCharacters. */
  | { tooLong: { characters: number; inputs: number } };

export interface TokenDecoderApi {
  decode(request: DecodeRequest, context: CallContext): Promise<DecodeResult>;
}

export const TOKEN_DECODER_WORKER = workerModule<TokenDecoderApi>(import.meta.url, './token-decoder-worker');
