/** Mono or interleaved-free audio: one Float32 channel in [-1, 1] and its sample rate. */
export interface PcmAudio {
  readonly samples: Float32Array;
  readonly sampleRate: number;
}
