/**
 * An Opus encoder for Mediabunny's Ogg muxer, over libopus compiled to WASM (opusscript).
 * Mediabunny brings no Opus encoder of its own (it expects the browser's WebCodecs), so this
 * custom coder fills the gap: mono, 20-ms frames, the OpusHead the muxer writes first.
 */
import { CustomAudioEncoder, EncodedPacket, type AudioSample } from 'mediabunny';
import OpusScript from 'opusscript';
import { OPUS_SAMPLE_RATES } from './codec-sample-rates.js';

type OpusRate = (typeof OPUS_SAMPLE_RATES)[number];

/** libopus's look-ahead (2.5 ms + 4 ms of delay compensation) at 48 kHz: what decoders drop first (RFC 7845 §4.2). */
const PRE_SKIP = 312;
const FRAME_SECONDS = 0.02;
/** Speech at 32 kbit/s is transparent enough; OpenAI's own Opus answers are around this rate. */
export const DEFAULT_OPUS_BITRATE = 32_000;

export class OpusScriptEncoder extends CustomAudioEncoder {
  #opus: OpusScript | undefined;
  #frame = new Float32Array(0);
  #filled = 0;
  /** Samples encoded so far (the next packet's start). */
  #position = 0;
  #sentConfig = false;

  static override supports(codec: string, config: { numberOfChannels: number; sampleRate: number }): boolean {
    return codec === 'opus' && config.numberOfChannels === 1 && (OPUS_SAMPLE_RATES as readonly number[]).includes(config.sampleRate);
  }

  override init(): void {
    this.#opus = new OpusScript(this.config.sampleRate as OpusRate, 1, OpusScript.Application.AUDIO, { wasm: true });
    this.#opus.setBitrate(this.config.bitrate && typeof this.config.bitrate === 'number' ? this.config.bitrate : DEFAULT_OPUS_BITRATE);
    this.#frame = new Float32Array(Math.round(this.config.sampleRate * FRAME_SECONDS));
  }

  override encode(sample: AudioSample): void {
    const samples = new Float32Array(sample.numberOfFrames);
    sample.copyTo(samples, { planeIndex: 0, format: 'f32-planar' });
    for (let offset = 0; offset < samples.length; ) {
      const take = Math.min(this.#frame.length - this.#filled, samples.length - offset);
      this.#frame.set(samples.subarray(offset, offset + take), this.#filled);
      this.#filled += take;
      offset += take;
      if (this.#filled === this.#frame.length) this.#emitFrame();
    }
  }

  /** The last partial frame, padded with silence. */
  override flush(): void {
    if (this.#filled === 0) return;
    this.#frame.fill(0, this.#filled);
    this.#emitFrame();
  }

  override close(): void {
    this.#opus?.delete();
    this.#opus = undefined;
  }

  #emitFrame(): void {
    const rate = this.config.sampleRate;
    const pcm = Buffer.alloc(this.#frame.length * 2);
    for (let i = 0; i < this.#frame.length; i++) pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, this.#frame[i]!)) * 32767), i * 2);
    // opusscript returns a view of its WASM heap, overwritten by the next call: copy it out.
    const data = Uint8Array.from(this.#opus!.encode(pcm, this.#frame.length));
    const packet = new EncodedPacket(data, 'key', this.#position / rate, this.#frame.length / rate);
    this.#position += this.#frame.length;
    this.#filled = 0;
    if (this.#sentConfig) {
      this.onPacket(packet);
      return;
    }
    this.#sentConfig = true;
    this.onPacket(packet, { decoderConfig: { codec: 'opus', numberOfChannels: 1, sampleRate: 48000, description: opusHead(rate) } });
  }
}

/** The Opus identification header (RFC 7845 §5.1): mono, mapping family 0, no gain. */
function opusHead(inputRate: number): Uint8Array {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(Buffer.from('OpusHead'));
  head[8] = 1; // version
  head[9] = 1; // channels
  view.setUint16(10, PRE_SKIP, true);
  view.setUint32(12, inputRate, true);
  return head;
}
