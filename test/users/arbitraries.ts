/** fast-check arbitraries for user fields, shared by the users fuzz tests. */
import fc from 'fast-check';

/** UTF-16 units weighted towards the interesting ones: lone surrogates, C0/C1 controls, astral characters. */
export const utf16Unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '.', '@', 'é', 'ß', '中', '😀', '👩‍💻') },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
);

export const anyText = (maxLength = 12) => fc.string({ unit: utf16Unit, maxLength });

/** Unquoted address characters per RFC 5322 atext, plus non-ASCII letters (RFC 6531). */
const localChar = fc.constantFrom(..."abcXYZ019!#$%&'*+-/=?^_`{|}~.", 'é', 'ü', '中', 'я', '😀');
const labelChar = fc.constantFrom(...'abcXYZ019-', 'ä', 'ñ', '例', 'д');
const label = fc.string({ unit: labelChar, minLength: 1, maxLength: 10 });

/** A valid address of unquoted characters (many shapes, rarely equal to another). */
export const address = fc
  .tuple(fc.string({ unit: localChar, minLength: 1, maxLength: 20 }), fc.array(label, { minLength: 2, maxLength: 4 }))
  .map(([local, labels]) => `${local}@${labels.join('.')}`);

/** What only a quoted or bracketed address may hold, spaces of every kind, and control characters. */
export const forbiddenInAddress = fc.oneof(
  fc.constantFrom('<', '>', '(', ')', '[', ']', ',', ';', ':', '\\', '"', ' ', '\t', '\u00a0', '\u2028', '\u3000', '\u007f'),
  fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x80, max: 0x9f }).map((code) => String.fromCharCode(code)),
);

/** Oracles that share no code with src/http/validation.ts. */
export const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8') === text;
export const codePoints = (text: string) => Array.from(text).length;
export const hasControl = (text: string) => Array.from(text).some((c) => c.codePointAt(0)! <= 0x1f || (c.codePointAt(0)! >= 0x7f && c.codePointAt(0)! <= 0x9f));
