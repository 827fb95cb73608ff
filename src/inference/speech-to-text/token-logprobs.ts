/**
 * OpenAI's `logprobs` entries (`{token, logprob, bytes}`) of decoded text tokens. Whisper's
 * vocabulary is GPT-2's byte-level BPE: each token's piece spells its bytes with one printable
 * character per byte (`Ġ` for a space), so the bytes are exact even where a token holds only part
 * of a UTF-8 character (its `token` text then shows U+FFFD, as OpenAI's does).
 */
import type { TokenLogprob } from '../types.js';

/** GPT-2's bytes_to_unicode, reversed: piece character → byte. */
function pieceCharacterBytes(): Map<string, number> {
  const printable = [...range(0x21, 0x7e), ...range(0xa1, 0xac), ...range(0xae, 0xff)];
  const byCharacter = new Map<string, number>();
  for (const byte of printable) byCharacter.set(String.fromCodePoint(byte), byte);
  let next = 0;
  for (let byte = 0; byte < 256; byte++) {
    if (printable.includes(byte)) continue;
    byCharacter.set(String.fromCodePoint(256 + next++), byte);
  }
  return byCharacter;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** Maps token ids to OpenAI's entries over a tokenizer's vocabulary (piece → id). */
export class TokenLogprobs {
  readonly #pieces: Map<number, string>;
  readonly #byteOf = pieceCharacterBytes();
  readonly #utf8 = new TextDecoder('utf-8');

  constructor(vocabulary: ReadonlyMap<string, number>) {
    this.#pieces = new Map([...vocabulary].map(([piece, id]) => [id, piece]));
  }

  entry(id: number, logprob: number): TokenLogprob {
    const bytes = [...(this.#pieces.get(id) ?? '')].map((character) => this.#byteOf.get(character) ?? 0x3f);
    return { token: this.#utf8.decode(Uint8Array.from(bytes)), logprob, bytes };
  }

  /** Entries of the text tokens (ids below `eot`) among `tokens`, with their log probabilities. */
  entries(tokens: readonly number[], logprobs: readonly number[], eot: number): TokenLogprob[] {
    return tokens.flatMap((id, index) => (id < eot ? [this.entry(id, logprobs[index]!)] : []));
  }
}
