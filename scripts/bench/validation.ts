/**
 * What validating a request body costs: our TypeBox schemas compiled by Ajv (through
 * createRequestValidator, so with the null/number normalisation and, on invalid input, the
 * error phrasing the app pays for) against the same rules written in zod 4 and valibot, on the
 * text-to-speech request and the users input, valid and invalid. Prints operations per second,
 * best of BENCH_ROUNDS (default 5) interleaved rounds of BENCH_MS (default 300) each.
 *
 * zod and valibot are not dependencies of this project: install them outside the repo and
 * point BENCH_DEPS at that folder, e.g.
 *   mkdir -p /tmp/valbench && (cd /tmp/valbench && npm init -y && npm install zod@4 valibot)
 *   BENCH_DEPS=/tmp/valbench npx tsx scripts/bench/validation.ts
 * Without BENCH_DEPS only the TypeBox + Ajv rows are printed.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { userInputParser } from '../../src/http/routes/users-router.js';
import { speechRequest } from '../../src/http/routes/v1/speech-routes.js';
import { createRequestValidator } from '../../src/http/validation.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_MS ?? 300);

const INPUTS = {
  speech: {
    valid: {
      model: 'piper-en_US-joe-medium',
      input: 'The quick brown fox jumps over the lazy dog. Sphinx of black quartz, judge my vow! '.repeat(3),
      voice: 'alloy',
      speed: 1.25,
      response_format: 'mp3',
    },
    invalid: { model: 'piper-en_US-joe-medium', input: 'Hello there.', speed: 10 },
  },
  users: {
    valid: { name: 'Zoë Ångström', email: 'zoe.angstrom@example.org' },
    invalid: { name: 'Ann', email: 'ann at example.org' },
  },
};

type Check = (body: unknown) => boolean;
interface Contender {
  name: string;
  speech: Check;
  users: Check;
}

const LONE_SURROGATE = /\p{Surrogate}/u;
const CONTROL = /\p{Cc}/u;
const EMAIL = /^(?!.*\s)[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.\u{80}-\u{10FFFF}]{1,64}@[A-Za-z0-9\-\u{80}-\u{10FFFF}]+(?:\.[A-Za-z0-9\-\u{80}-\u{10FFFF}]+)+$/u;
const codePoints = (text: string) => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};
/** The rules of one Text field, for libraries without custom keywords. */
const textOk = (value: string, maxLength: number, oneLine = false) =>
  // The same shortcut as ours: `length` never undercounts code points.

  !LONE_SURROGATE.test(value) && value.trim() !== '' && (value.length <= maxLength || codePoints(value) <= maxLength) && !(oneLine && CONTROL.test(value));

function ours(): Contender {
  const validator = createRequestValidator();
  const speech = validator.compile(speechRequest(DEFAULT_LIMITS));
  const users = userInputParser(validator);
  const passes =
    (parse: (body: unknown) => unknown): Check =>
    (body) => {
      try {
        parse(body);
        return true;
      } catch {
        return false;
      }
    };
  return { name: 'TypeBox + Ajv (as the app runs it)', speech: passes(speech), users: passes(users) };
}

async function optional(name: string): Promise<any | undefined> {
  const dir = process.env.BENCH_DEPS;
  if (!dir) return undefined;
  const resolved = createRequire(join(dir, 'package.json')).resolve(name);
  return import(pathToFileURL(resolved).href);
}

async function zod(): Promise<Contender | undefined> {
  const module = await optional('zod');
  if (!module) return undefined;
  const z = module.z ?? module;
  const text = (max: number, oneLine = false) => z.string().refine((value: string) => textOk(value, max, oneLine));
  const speech = z.object({
    model: text(200),
    input: text(DEFAULT_LIMITS.maxSpeechInputChars),
    voice: text(100).optional(),
    speed: z.number().min(0.25).max(4).optional(),
    response_format: z.enum(['mp3', 'wav']).optional(),
  });
  const users = z.object({ name: text(200, true), email: text(254, true).regex(EMAIL) });
  if (process.env.BENCH_SHOW_SCHEMAS) console.log(JSON.stringify(z.toJSONSchema(speech, { unrepresentable: 'any' }), null, 1));
  return { name: `zod ${module.z ? 4 : ''}`.trim(), speech: (body) => speech.safeParse(body).success, users: (body) => users.safeParse(body).success };
}

async function valibot(): Promise<Contender | undefined> {
  const v = await optional('valibot');
  if (!v) return undefined;
  const text = (max: number, oneLine = false) =>
    v.pipe(
      v.string(),
      v.check((value: string) => textOk(value, max, oneLine)),
    );
  const speech = v.object({
    model: text(200),
    input: text(DEFAULT_LIMITS.maxSpeechInputChars),
    voice: v.optional(text(100)),
    speed: v.optional(v.pipe(v.number(), v.minValue(0.25), v.maxValue(4))),
    response_format: v.optional(v.picklist(['mp3', 'wav'])),
  });
  const users = v.object({ name: text(200, true), email: v.pipe(text(254, true), v.regex(EMAIL)) });
  return { name: 'valibot', speech: (body) => v.safeParse(speech, body).success, users: (body) => v.safeParse(users, body).success };
}

/** Operations per second of `check(body)` over one round. */
function measure(check: Check, body: unknown, expected: boolean): number {
  let operations = 0;
  const end = performance.now() + ROUND_MS;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) if (check(body) !== expected) throw new Error('a contender disagrees on the verdict');
    operations += 200;
  }
  return operations / (ROUND_MS / 1000);
}

const contenders = [ours(), await zod(), await valibot()].filter((c): c is Contender => c !== undefined);
const cases = (['speech', 'users'] as const).flatMap((schema) => (['valid', 'invalid'] as const).map((kind) => ({ schema, kind, body: INPUTS[schema][kind] })));
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const { schema, kind, body } of cases) {
    for (const contender of contenders) {
      const key = `${contender.name}|${schema}|${kind}`;
      best.set(key, Math.max(best.get(key) ?? 0, measure(contender[schema], body, kind === 'valid')));
    }
  }
}

console.log(`validation ops/s, best of ${ROUNDS} rounds of ${ROUND_MS} ms (ratio to TypeBox + Ajv)`);
for (const { schema, kind } of cases) {
  const base = best.get(`${contenders[0]!.name}|${schema}|${kind}`)!;
  const row = contenders.map((c) => {
    const value = best.get(`${c.name}|${schema}|${kind}`)!;
    return `${c.name}: ${Math.round(value).toLocaleString('en')} (${(value / base).toFixed(2)}x)`;
  });
  console.log(`${schema} ${kind}`.padEnd(16), row.join(' | '));
}
