/**
 * The WASM decoders print every corrupt frame to console.error ("mpg123-decoder: …",
 * "libopus -4 …", "@wasm-audio-decoders/flac: …") in addition to returning it. A client
 * could flood the server's stderr with one corrupt upload, so a thread that decodes untrusted
 * audio drops those lines; everything else still reaches the real console.error.
 */
const DECODER_PREFIXES = /^(mpg123-decoder:|libopus -?\d|@wasm-audio-decoders\/|libvorbis|OggVorbisDecoder)/;

export function quietDecoderLogs(target: Pick<Console, 'error'> = console): void {
  const original = target.error.bind(target);
  target.error = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && DECODER_PREFIXES.test(args[0])) return;
    original(...args);
  };
}
