/**
 * The session's audio not yet committed, addressed by sample index in the whole stream (so VAD
 * times, which count from the stream's start, cut it directly). Chunks are kept as they arrived and
 * only copied when a turn is taken.
 */
export class StreamBuffer {
  #chunks: Float32Array[] = [];
  /** Stream index of the first buffered sample. */
  #start = 0;
  #streamSamples = 0;

  /** `onChange` is told how many samples are buffered after every change (the session's budget). */
  constructor(private readonly onChange: (buffered: number) => void) {}

  /** Samples received since the stream began. */
  get streamSamples(): number {
    return this.#streamSamples;
  }

  /** Samples buffered: everything received since the buffer's first sample. */
  get samples(): number {
    return this.#streamSamples - this.#start;
  }

  push(samples: Float32Array): void {
    this.#chunks.push(samples);
    this.#streamSamples += samples.length;
    this.onChange(this.samples);
  }

  /** Forgets buffered audio before stream sample `until`. */
  drop(until: number): void {
    this.take(Math.max(this.#start, Math.min(until, this.#streamSamples)));
  }

  /** Removes and returns the buffered audio before stream sample `end`. */
  take(end: number): Float32Array {
    const count = Math.max(0, Math.min(end - this.#start, this.samples));
    const taken = new Float32Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.#chunks[0]!;
      const used = Math.min(chunk.length, count - filled);
      taken.set(chunk.subarray(0, used), filled);
      filled += used;
      if (used === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(used);
    }
    this.#start += count;
    this.onChange(this.samples);
    return taken;
  }
}
