/**
 * The `audio` of an `input_audio_buffer.append`, read as strict base64 (RFC 4648 §4): the
 * standard alphabet, `=` padding only at the end, whole groups of 4 characters. Node's decoder
 * skips what it cannot read and stops at a stray `=`, so `!!!!`, a `data:` URL or hex would
 * become a few stray bytes committed as audio; an append that is not base64 is refused whole,
 * with a message that says what is wrong, and nothing of it reaches the buffer.
 */
import { ValidationError } from '../../errors.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const NOT_BASE64 = /[^A-Za-z0-9+/=]/u;
const DATA_URL = /^data:/i;
/**
 * Hex digits are base64 characters, so hex of a length that is a multiple of 4 decodes. Base64 of
 * audio is not only `0-9a-f` for long: every 6-bit group would be 26–31 or 52–61, and no 3 bytes
 * holding a 0x00 (silence, the high byte of a small positive PCM16 sample) encode so (checked over
 * all of them); for random bytes the odds are 4^-16.
 */
const LOWERCASE_HEX = /^[0-9a-f]+$/;
const MIN_HEX_CHARACTERS = 16;

/** The bytes of `text`, or a ValidationError (`param` "audio") saying why it is not base64. */
export function decodeBase64Audio(text: string): Buffer {
  const problem = base64Problem(text);
  if (problem) throw new ValidationError(`"audio" ${problem}`, 'audio');
  return Buffer.from(text, 'base64');
}

function base64Problem(text: string): string | undefined {
  if (DATA_URL.test(text)) return 'is a data: URL; send only the base64 after its comma';
  if (!BASE64.test(text)) {
    const at = text.search(NOT_BASE64);
    if (at === -1) return 'has "=" padding before its end; padding is at most two "=" that end the text';
    const character = String.fromCodePoint(text.codePointAt(at)!);
    return `is not base64: character ${at + 1} is ${JSON.stringify(character)}; base64 uses only A-Z, a-z, 0-9, "+" and "/" (no spaces, line breaks or base64url "-", "_")`;
  }
  if (text.length % 4 !== 0) return `is ${text.length} characters long, not a multiple of 4: base64 is padded with "=" to whole groups of 4`;
  if (text.length >= MIN_HEX_CHARACTERS && LOWERCASE_HEX.test(text)) return 'is hexadecimal, not base64: send the audio bytes base64-encoded';
  return undefined;
}
