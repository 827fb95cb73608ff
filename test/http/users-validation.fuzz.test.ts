/**
 * Properties of the request validator (src/http/validation.ts, with the field builders of
 * schema-types.ts) and the users input rule, on
 * strings built from raw UTF-16 units: lone surrogates, C0/C1 controls, astral characters.
 * Each expectation comes from an oracle written independently of the code under test.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { AppError, PayloadTooLargeError, ValidationError } from '../../src/errors.js';
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS, userInputParser } from '../../src/http/routes/users-router.js';
import { NumberIn, StringEnum, Text } from '../../src/http/schema-types.js';
import { characterCount, createRequestValidator } from '../../src/http/validation.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { address, anyText, codePoints, forbiddenInAddress, hasControl, wellFormed } from '../users/arbitraries.js';

const validator = createRequestValidator();
const parseUserInput = userInputParser(validator);

interface StringRule {
  maxLength?: number;
  tooLargeStatus?: 400 | 413;
  nonEmpty?: boolean;
  noControlCharacters?: boolean;
}

/** One compiled validator per distinct schema, as an app has: compiling per case would measure Ajv, not us. */
const compiled = new Map<string, (body: unknown) => any>();
function validate(schema: TSchema, body: unknown): any {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) compiled.set(key, validator.compile(schema));
  return compiled.get(key)!(body);
}

/** A one-field body `{field: text}` checked against a Text field with this rule; returns the field. */
function checkField(text: unknown, rule: StringRule): unknown {
  const field = Text('', {
    ...(rule.maxLength !== undefined ? { maxLength: rule.maxLength } : {}),
    ...(rule.tooLargeStatus === 413 ? { tooLargeStatus: 413 as const } : {}),
    notBlank: rule.nonEmpty ?? true,
    oneLine: rule.noControlCharacters ?? false,
  });
  return validate(Type.Object({ field }), { field: text }).field;
}

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

  it('a Text field returns exactly what was sent or refuses it for the first rule it breaks', () => {
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
        const result = outcome(() => checkField(text, rule));
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

  it('every kind of field either returns a value of its type or throws a 400/413 naming the field, for any JSON value', () => {
    const field = (schema: TSchema) => (body: Record<string, unknown>) => validate(Type.Object({ f: schema }), body).f;
    const guards: Array<[string, (body: Record<string, unknown>) => unknown, (value: unknown) => boolean]> = [
      ['required text', field(Text('', { maxLength: 5 })), (v) => typeof v === 'string'],
      ['optional text', field(Type.Optional(Text(''))), (v) => v === undefined || typeof v === 'string'],
      ['number in a range', field(Type.Optional(NumberIn({ min: 0, max: 2 }))), (v) => v === undefined || (typeof v === 'number' && v >= 0 && v <= 2)],
      ['string enum', field(Type.Optional(StringEnum(['mp3', 'wav']))), (v) => v === undefined || v === 'mp3' || v === 'wav'],
      [
        'array of texts',
        field(Type.Optional(Type.Array(Text('', { maxLength: 4 }), { minItems: 1, maxItems: 3 }))),
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

  it('a body schema accepts exactly the non-array objects', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
        const result = outcome(() => validate(Type.Object({}), value));
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
        else
          expect(result)
            .to.have.property('error')
            .that.is.instanceOf(ValidationError)
            .with.property('message')
            .that.matches(/^"name" /);
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
