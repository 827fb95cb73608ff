/**
 * OpenAI's published OpenAPI spec, cut to what we implement (test/fixtures/openai-openapi), as
 * validators: OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's 2020 draft reads them once
 * their `#/components/schemas/` references point into `$defs`. Only the shapes are checked:
 * OpenAI's own formats (`unixtime`, `double`) are not JSON Schema's, and its `x-*` and
 * `discriminator` annotations change nothing a validator decides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schemas = Record<string, { properties?: { type?: { enum?: string[] } } }>;

const SPEC_PATH = join(REPO_ROOT, 'test/fixtures/openai-openapi/openapi.subset.json');
const SPEC_ID = 'openai-openapi';

let compiled: { ajv: Ajv2020; schemas: Schemas } | undefined;

function spec(): { ajv: Ajv2020; schemas: Schemas } {
  if (compiled) return compiled;
  const text = readFileSync(SPEC_PATH, 'utf8').replaceAll('"#/components/schemas/', '"#/$defs/');
  const schemas = (JSON.parse(text) as { components: { schemas: Schemas } }).components.schemas;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: SPEC_ID, $defs: schemas as unknown as Json }, SPEC_ID);
  compiled = { ajv, schemas };
  return compiled;
}

/** The validator of one schema of the spec, by its name under components.schemas. */
export function specSchema(name: string): ValidateFunction {
  const { ajv, schemas } = spec();
  if (!Object.hasOwn(schemas, name)) throw new Error(`The vendored spec has no schema ${name}`);
  return ajv.getSchema(`${SPEC_ID}#/$defs/${name}`)!;
}

export type RealtimeDialect = 'ga' | 'beta';

/** Each server event type of a realtime dialect and the name of its schema (RealtimeServerEvent…, RealtimeBetaServerEvent…). */
const eventSchemas = new Map<RealtimeDialect, Map<string, string>>();

export function realtimeServerEventSchemas(dialect: RealtimeDialect): Map<string, string> {
  const known = eventSchemas.get(dialect);
  if (known) return known;
  const prefix = dialect === 'ga' ? 'RealtimeServerEvent' : 'RealtimeBetaServerEvent';
  const byType = new Map<string, string>();
  for (const [name, schema] of Object.entries(spec().schemas)) {
    const type = schema.properties?.type?.enum?.[0];
    if (name.startsWith(prefix) && name !== prefix && type !== undefined) byType.set(type, name);
  }
  eventSchemas.set(dialect, byType);
  return byType;
}

/** What is wrong with `event` by the spec's schema for its type in `dialect`; empty when it conforms. */
export function realtimeEventProblems(dialect: RealtimeDialect, event: { type: string }): string[] {
  const { type } = event;
  const name = realtimeServerEventSchemas(dialect).get(type);
  if (name === undefined) return [`${dialect} ${type}: no event of this type in the spec`];
  const validate = specSchema(name);
  if (validate(event)) return [];
  return (validate.errors ?? []).map((error) => `${dialect} ${type} (${name}): ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
}

/** Fails the test, naming every mismatch, unless `value` is a valid `components.schemas[name]`. */
export function expectOpenAiShape(name: string, value: unknown): void {
  const validate = specSchema(name);
  const ok = validate(value);
  expect(ok, `${name}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(value).slice(0, 500)}`).to.equal(true);
}
