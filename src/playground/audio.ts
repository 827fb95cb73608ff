/** Audio in the browser: WAV wrapping, what a recording is uploaded as, and PCM16 for live captions. */

/** 16-bit PCM WAV of mono `samples` (−1…1). */
function wavFromSamples(samples: Float32Array, sampleRate: number): Blob {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) pcm[i] = Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 0x7fff);
  return wavFromPcm16(new Uint8Array(pcm.buffer), sampleRate);
}

/** A WAV header in front of headerless little-endian PCM16 mono (the server's `pcm` format). */
export function wavFromPcm16(pcm: Uint8Array, sampleRate: number): Blob {
  const header = new DataView(new ArrayBuffer(44));
  const text = (offset: number, value: string) => [...value].forEach((c, i) => header.setUint8(offset + i, c.charCodeAt(0)));
  text(0, 'RIFF');
  header.setUint32(4, 36 + pcm.byteLength, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, pcm.byteLength, true);
  return new Blob([header.buffer, pcm as Uint8Array<ArrayBuffer>], { type: 'audio/wav' });
}

/** Speech models hear 16 kHz; sending more only costs upload bytes. */
const UPLOAD_RATE = 16_000;

/**
 * What a MediaRecorder recording (WebM/Opus in Chromium and Firefox, MP4/AAC in Safari) is sent
 * as: decoded here and sent as 16-kHz mono WAV, which every server version reads. The one place
 * to change once the server decodes WebM and MP4 itself: return the recording as it is.
 */
export async function recordingUpload(recording: Blob): Promise<File> {
  const context = new AudioContext();
  let decoded: AudioBuffer;
  try {
    decoded = await context.decodeAudioData(await recording.arrayBuffer());
  } finally {
    await context.close();
  }
  const frames = Math.max(1, Math.ceil(decoded.duration * UPLOAD_RATE));
  // One channel out: the offline context downmixes and resamples in one render.
  const offline = new OfflineAudioContext(1, frames, UPLOAD_RATE);
  const source = offline.createBufferSource();
  source.buffer = decoded;
  source.connect(offline.destination);
  source.start();
  const rendered = await offline.startRendering();
  return new File([wavFromSamples(rendered.getChannelData(0), UPLOAD_RATE)], 'recording.wav', { type: 'audio/wav' });
}

/** Base64 of PCM16 little-endian, what the realtime API's `input_audio_buffer.append` carries. */
export function base64Pcm16(samples: Float32Array): string {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) pcm[i] = Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 0x7fff);
  const bytes = new Uint8Array(pcm.buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
