/**
 * Url-encoded form text decoded strictly, as qs's `decoder` for form bodies. qs's own keeps a
 * whole key or value raw when decodeURIComponent throws, so `q=the%20dog%ED%A0%80` (the bytes of a
 * UTF-16 surrogate, not UTF-8) reached the model as `the%20dog%ED%A0%80` and came back
 * translated. Here percent-escapes that are not UTF-8 are a 400 naming the field, as a lone
 * surrogate in JSON is; a `%` that starts no escape (`100%`) stays a literal `%`.
 */
import { ValidationError } from '../errors.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

type Decoder = (text: string, defaultDecoder: unknown, charset: unknown, type: 'key' | 'value') => string;

/**
 * A decoder for one middleware's qs options. qs decodes each pair's key, then its value,
 * synchronously, so the key it last decoded names the value that fails.
 */
export function strictFormDecoder(): Decoder {
  let key = '';
  return (text, _defaultDecoder, _charset, type) => {
    const spaced = text.replaceAll('+', ' ');
    const decoded = decodeEscapes(spaced);
    if (decoded === undefined) {
      const field = type === 'key' ? spaced : key;
      const escapes = [...spaced.matchAll(ESCAPE_RUN)].map(([run]) => run).find((run) => decodeEscapes(run) === undefined);
      throw new ValidationError(`"${field}" is not valid Unicode: its percent-encoded bytes ${escapes} are not UTF-8`, field);
    }
    if (type === 'key') key = decoded;
    return decoded;
  };
}

/** `text` with its %XX escapes read as UTF-8 bytes; undefined when they are not UTF-8. */
function decodeEscapes(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray `%` (or bytes that are not UTF-8): decode the escapes alone, strictly.
  }
  try {
    return text.replace(ESCAPE_RUN, (run) => STRICT_UTF8.decode(Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16))));
  } catch {
    return undefined;
  }
}
