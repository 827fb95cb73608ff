/**
 * The one way engines read their manifest `options`: each engine declares a TypeBox schema,
 * Ajv checks it (filling in defaults) and the engine receives typed options. The registry runs
 * this for every manifest entry when it is built, so a bad option stops the server at start-up
 * with a message naming the model and the field, instead of a 503 on the first request.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ManifestError, type ManifestEntry } from './manifest.js';

export interface EngineOptions<O> {
  /** JSON Schema of `options` (for documentation and tests). */
  readonly schema: TObject;
  /** Checked options with defaults filled in; throws a ManifestError naming the model and field. */
  read(entry: ManifestEntry): O;
}

/** A cross-field rule the schema cannot say; returns what is wrong (e.g. "options.x must …"), or nothing. */
export type OptionsRule<O> = (options: O) => string | undefined;

// verbose: the error carries its schema, so a union can be reported by its description.
const ajv = new Ajv({ useDefaults: true, verbose: true, allErrors: false, strict: true });

export function engineOptions<S extends TObject>(schema: S, rule?: OptionsRule<Static<S>>): EngineOptions<Static<S>> {
  let validate: ValidateFunction | undefined;
  // Entries are checked at start-up and read again at load and for GET /v1/models.
  const cache = new WeakMap<ManifestEntry, Static<S>>();
  return {
    schema,
    read(entry) {
      const cached = cache.get(entry);
      if (cached) return cached;
      validate ??= ajv.compile(schema);
      // A copy: defaults are written into the checked object, and the manifest stays as written.
      const options = structuredClone(entry.options ?? {});
      if (!validate(options)) throw optionError(entry, describeError(validate.errors ?? []));
      const problem = rule?.(options as Static<S>);
      if (problem) throw optionError(entry, problem);
      cache.set(entry, options as Static<S>);
      return options as Static<S>;
    },
  };
}

/** For engines with no options: any option is refused, so a typo cannot pass silently. */
export const NO_OPTIONS = engineOptions(Type.Object({}, { additionalProperties: false }));

/** One of a few strings, checked with `enum` so the error lists them. */
export function stringEnum<const T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

function optionError(entry: ManifestEntry, problem: string): ManifestError {
  return new ManifestError(`model "${entry.id}" (engine "${entry.engine}"): ${problem}`);
}

/** Ajv's first error as "options.labels[0].label must be string". */
function describeError(errors: readonly ErrorObject[]): string {
  // A failed union reports each branch, then itself: the union (and its description) says most.
  const error = errors.find((candidate) => candidate.keyword === 'anyOf') ?? errors[0];
  if (!error) return 'options are invalid';
  const at = fieldPath(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema as { properties?: object })?.properties ?? {});
      const name = String(error.params.additionalProperty);
      return `${at}.${name} is not an option of this engine${known.length ? ` (known: ${known.join(', ')})` : ''}`;
    }
    case 'required':
      return `${at}.${String(error.params.missingProperty)} is required`;
    case 'enum':
      return `${at} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'anyOf':
      return `${at} must be ${(error.parentSchema as TSchema)?.description ?? 'one of the allowed forms'}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}

function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`), 'options');
}
