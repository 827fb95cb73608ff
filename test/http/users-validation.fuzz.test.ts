/**
 * Properties of the shared field guards (src/http/validation.ts) and the users input rule, on
 * strings built from raw UTF-16 units: lone surrogates, C0/C1 controls, astral characters.
 * Each expectation comes from an oracle written independently of the code under test.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { AppError, PayloadTooLargeError, ValidationError } from '../../src/errors.js';
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS, parseUserInput } from '../../src/http/routes/users-router.js';
import {
  characterCount,
  optionalEnum,
  optionalNumber,
  optionalString,
  optionalStringArray,
  requireObject,
  requireString,
  type StringRule,
} from '../../src/http/validation.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { address, anyText, codePoints, forbiddenInAddress, hasControl, wellFormed } from '../users/arbitraries.js';

function outcome(run: () => unknown): { value: unknown } | { error: Error } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error as Error };
  }
}

describe('validation guards (property)', () => {
  it('characterCount counts code points: never more than UTF-16 units, an astral character once', () => {
    fc.assert(
      fc.property(anyText(40), (text) => {
        expect(characterCount(text)).to.equal(codePoints(text));
        expect(characterCount(text)).to.be.at.most(text.length);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('requireString returns exactly what was sent or refuses it for the first rule it breaks', () => {
    const rule = fc.record(
      {
        maxLength: fc.integer({ min: 0, max: 10 }),
        tooLargeStatus: fc.constantFrom<400 | 413>(400, 413),
        nonEmpty: fc.boolean(),
        noControlCharacters: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(anyText(), rule, (text, rule: StringRule) => {
        const result = outcome(() => requireString({ field: text }, 'field', rule));
        let expected: [new (message: string) => AppError, RegExp] | undefined;
        if (!wellFormed(text)) expected = [ValidationError, /^"field" is not valid Unicode: .* U\+D[89A-F][0-9A-F]{2}$/];
        else if ((rule.nonEmpty ?? true) && text.trim() === '') expected = [ValidationError, /^"field" must not be empty$/];
        else if (rule.maxLength !== undefined && codePoints(text) > rule.maxLength) {
          const type = rule.tooLargeStatus === 413 ? PayloadTooLargeError : ValidationError;
          expected = [type, new RegExp(`^"field" is ${codePoints(text)} characters; the limit is ${rule.maxLength}$`)];
        } else if (rule.noControlCharacters && hasControl(text)) {
          expected = [ValidationError, /^"field" must not contain control characters \(found U\+00[0-9A-F]{2}\)$/];
        }
        if (expected === undefined) {
          expect(result).to.deep.equal({ value: text });
        } else {
          expect(result).to.have.property('error').that.is.instanceOf(expected[0]).and.has.property('message').that.matches(expected[1]);
        }
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('every guard either returns a value of its type or throws a 400/413 naming the field, for any JSON value', () => {
    const guards: Array<[string, (body: Record<string, unknown>) => unknown, (value: unknown) => boolean]> = [
      ['requireString', (b) => requireString(b, 'f', { maxLength: 5 }), (v) => typeof v === 'string'],
      ['optionalString', (b) => optionalString(b, 'f'), (v) => v === undefined || typeof v === 'string'],
      ['optionalNumber', (b) => optionalNumber(b, 'f', { min: 0, max: 2 }), (v) => v === undefined || (typeof v === 'number' && v >= 0 && v <= 2)],
      ['optionalEnum', (b) => optionalEnum(b, 'f', ['mp3', 'wav']), (v) => v === undefined || v === 'mp3' || v === 'wav'],
      [
        'optionalStringArray',
        (b) => optionalStringArray(b, 'f', { maxItems: 3, maxLength: 4 }),
        (v) => v === undefined || (Array.isArray(v) && v.length >= 1 && v.length <= 3 && v.every((s) => typeof s === 'string')),
      ],
    ];
    const jsonValue = fc.oneof(fc.jsonValue(), anyText(), fc.array(anyText(6), { maxLength: 4 }));
    fc.assert(
      fc.property(jsonValue, fc.nat(guards.length - 1), (value, index) => {
        const [name, guard, typed] = guards[index]!;
        const result = outcome(() => guard({ f: value }));
        if ('value' in result) {
          expect(typed(result.value), `${name} returned ${JSON.stringify(result.value)}`).to.equal(true);
        } else {
          expect(result.error, name).to.be.instanceOf(AppError);
          expect((result.error as AppError).status, name).to.be.oneOf([400, 413]);
          expect(result.error.message, name).to.match(/"f(\[\d+\])?"/);
        }
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('requireObject accepts exactly the non-array objects', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
        const result = outcome(() => requireObject(value));
        expect('value' in result).to.equal(isObject);
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});

describe('users input rule (property)', () => {
  it('accepts any address of unquoted characters and stores it as sent', () => {
    fc.assert(
      fc.property(address, (email) => {
        expect(parseUserInput({ name: 'Ann', email })).to.deep.equal({ name: 'Ann', email });
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('refuses an address with a quoted-only, space or control character anywhere in it', () => {
    fc.assert(
      fc.property(address, forbiddenInAddress, fc.nat(), (email, bad, at) => {
        const position = at % (email.length + 1);
        const tainted = email.slice(0, position) + bad + email.slice(position);
        expect(() => parseUserInput({ name: 'Ann', email: tainted })).to.throw(ValidationError, /^"email" /);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('accepts a name exactly when it is well-formed, not blank, at most 200 characters and free of control characters', () => {
    const name = fc.oneof(anyText(), fc.string({ unit: 'grapheme', minLength: 195, maxLength: 205 }));
    fc.assert(
      fc.property(name, (name) => {
        const valid = wellFormed(name) && name.trim() !== '' && codePoints(name) <= MAX_NAME_CHARS && !hasControl(name);
        const result = outcome(() => parseUserInput({ name, email: 'ann@example.org' }));
        if (valid) expect(result).to.deep.equal({ value: { name, email: 'ann@example.org' } });
        else expect(result).to.have.property('error').that.is.instanceOf(ValidationError).with.property('message').that.matches(/^"name" /);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('never answers anything but a ValidationError for any body', () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ name: fc.oneof(anyText(), fc.jsonValue()), email: fc.oneof(anyText(), address, fc.jsonValue()) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(body, (body) => {
        const result = outcome(() => parseUserInput(body));
        if ('error' in result) expect(result.error).to.be.instanceOf(ValidationError);
        else {
          const { name, email } = result.value as { name: string; email: string };
          expect(characterCount(name)).to.be.within(1, MAX_NAME_CHARS);
          expect(characterCount(email)).to.be.within(5, MAX_EMAIL_CHARS);
        }
      }),
      { numRuns: fuzzRuns(300) },
    );
  });
});
