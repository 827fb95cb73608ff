import { createRequire } from 'node:module';
import { UndecodableAudioError } from '../errors.js';
import { audioTooLong, type DecodeLimits, type DecodedAudio } from './decoded-audio.js';

// wavefile is CommonJS without named exports; require() reads it the same way under tsx and dist.
const { WaveFile } = createRequire(import.meta.url)('wavefile') as typeof import('wavefile');

const PCM = 1;
const IEEE_FLOAT = 3;
const EXTENSIBLE = 0xfffe;

interface WavFormat {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
  /** Byte offset of the fmt chunk body, for the extensible sub-format. */
  fmtStart: number;
}

/**
 * RIFF/WAVE. Integer PCM (8–32 bit) and float are converted here directly from the data
 * chunk: wavefile's generic toBitDepth is ~50x slower (0.4 s for 8 s of audio). Companded
 * and ADPCM encodings, which are rare and short, go through wavefile.
 */
export function decodeWav(bytes: Uint8Array, limits: DecodeLimits): DecodedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { format, dataStart, dataBytes } = readChunks(view);
  if (format.channels < 1 || format.sampleRate < 1 || format.blockAlign < 1) {
    throw new UndecodableAudioError('invalid WAV format header');
  }
  // A truncated file keeps its header's data size; read the whole frames that are present.
  const frames = Math.floor(Math.min(dataBytes, bytes.length - dataStart) / format.blockAlign);
  if (frames === 0) throw new UndecodableAudioError('the WAV file contains no samples');
  if (frames / format.sampleRate > limits.maxSeconds) throw audioTooLong(limits.maxSeconds);

  const encoding = format.audioFormat === EXTENSIBLE ? extensibleSubFormat(view, format) : format.audioFormat;
  if (encoding === PCM || encoding === IEEE_FLOAT) {
    return { channels: readLinear(view, dataStart, frames, format, encoding === IEEE_FLOAT), sampleRate: format.sampleRate };
  }
  return decodeWithWavefile(bytes, format);
}

function readChunks(view: DataView): { format: WavFormat; dataStart: number; dataBytes: number } {
  let format: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= view.byteLength) {
    const id = String.fromCharCode(view.getUint8(offset), view.getUint8(offset + 1), view.getUint8(offset + 2), view.getUint8(offset + 3));
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= view.byteLength) {
      format = {
        audioFormat: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        blockAlign: view.getUint16(body + 12, true),
        bitsPerSample: view.getUint16(body + 14, true),
        fmtStart: body,
      };
    } else if (id === 'data') {
      if (!format) throw new UndecodableAudioError('WAV data chunk comes before its format chunk');
      return { format, dataStart: body, dataBytes: size };
    }
    offset = body + size + (size % 2); // chunks are padded to even sizes
  }
  throw new UndecodableAudioError(format ? 'the WAV file has no data chunk' : 'the WAV file has no format chunk');
}

/** WAVE_FORMAT_EXTENSIBLE stores the real encoding in the first two bytes of its sub-format GUID. */
function extensibleSubFormat(view: DataView, format: WavFormat): number {
  return format.fmtStart + 26 <= view.byteLength ? view.getUint16(format.fmtStart + 24, true) : 0;
}

function readLinear(view: DataView, start: number, frames: number, format: WavFormat, float: boolean): Float32Array[] {
  const bytesPerSample = format.bitsPerSample / 8;
  const read = sampleReader(view, float, format.bitsPerSample);
  const channels = Array.from({ length: format.channels }, () => new Float32Array(frames));
  for (let frame = 0; frame < frames; frame++) {
    const frameStart = start + frame * format.blockAlign;
    for (let c = 0; c < format.channels; c++) channels[c]![frame] = read(frameStart + c * bytesPerSample);
  }
  return channels;
}

/** Returns a reader of one sample at a byte offset, scaled to [-1, 1). */
function sampleReader(view: DataView, float: boolean, bits: number): (offset: number) => number {
  if (float && bits === 32) return (o) => view.getFloat32(o, true);
  if (float && bits === 64) return (o) => view.getFloat64(o, true);
  if (float) throw new UndecodableAudioError(`unsupported WAV float size ${bits} bits`);
  switch (bits) {
    case 8: // 8-bit WAV is unsigned, centred on 128
      return (o) => (view.getUint8(o) - 128) / 128;
    case 16:
      return (o) => view.getInt16(o, true) / 32768;
    case 24:
      return (o) => ((view.getUint8(o) | (view.getUint8(o + 1) << 8) | (view.getInt8(o + 2) << 16)) / 8388608);
    case 32:
      return (o) => view.getInt32(o, true) / 2147483648;
    default:
      throw new UndecodableAudioError(`unsupported WAV sample size ${bits} bits`);
  }
}

function decodeWithWavefile(bytes: Uint8Array, format: WavFormat): DecodedAudio {
  const wav = new WaveFile();
  try {
    wav.fromBuffer(bytes);
    if (format.audioFormat === 6) wav.fromALaw();
    else if (format.audioFormat === 7) wav.fromMuLaw();
    else if (format.audioFormat === 17) wav.fromIMAADPCM();
    else throw new UndecodableAudioError(`unsupported WAV encoding (format tag ${format.audioFormat})`);
    wav.toBitDepth('32f');
  } catch (error) {
    if (error instanceof UndecodableAudioError) throw error;
    throw new UndecodableAudioError(`invalid WAV data (${(error as Error).message})`);
  }
  const samples = wav.getSamples(false, Float32Array) as unknown as Float32Array | Float32Array[];
  return { channels: Array.isArray(samples) ? samples : [samples], sampleRate: format.sampleRate };
}
