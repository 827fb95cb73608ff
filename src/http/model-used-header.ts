/**
 * Names the model that answered in an `X-Model` response header, so a request for an alias
 * (`whisper-1`, `tts-1`) learns which installed model ran, whatever room the answer's shape has
 * (OpenAI's transcription JSON, text, subtitles, audio bytes). The same name is accepted as a
 * request header for the model of raw-audio uploads.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Next } from 'koa';

const MODEL_USED_HEADER = 'X-Model';

interface ModelUsedHeader {
  /** Runs the rest of the request with `ctx` as the one `announce` writes to. */
  run(ctx: Context, next: Next): Promise<unknown>;
  /** Sets the header on the current request, unless its headers are already sent. */
  announce(modelId: string): void;
}

export function modelUsedHeader(): ModelUsedHeader {
  const current = new AsyncLocalStorage<Context>();
  return {
    run: (ctx, next) => current.run(ctx, next),
    announce(modelId) {
      const ctx = current.getStore();
      if (ctx && !ctx.headerSent) ctx.set(MODEL_USED_HEADER, modelId);
    },
  };
}
