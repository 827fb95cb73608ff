/**
 * Stops a transformers.js generate() loop at its next step once `signal` aborts. generate()
 * calls its streamer's put() after the encoder pass and after every decoded token, and a throw
 * there ends the loop. (A stopping criterion would only end the current window or batch, and
 * Whisper's generate() in transformers.js 4.3 does not pass stopping_criteria on at all.)
 * Runs inside the model workers.
 */
interface GenerationStreamer {
  put(tokens: unknown): void;
  end(): void;
}

export function abortStreamer(signal: AbortSignal): GenerationStreamer {
  return {
    put: () => signal.throwIfAborted(),
    end: () => {},
  };
}
