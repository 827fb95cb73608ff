/**
 * The shapes of the JSON files `hf:` reads from a repo before anything is installed (config.json,
 * tokenizer_config.json…), one TypeBox schema each, checked by Ajv: a hub or mirror answering
 * `"architectures": [42]` or an `id2label` holding null gets one `error:` line naming the field,
 * not a TypeError from deep inside the planner. Only the fields the planner reads are described;
 * the rest of a file is the engine's business.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InstallError } from './install-errors.js';

const Label = Type.String();

export const RepoConfigShape = Type.Object({
  // Some exports write null for a model without a head.
  architectures: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  model_type: Type.Optional(Type.String()),
  id2label: Type.Optional(Type.Record(Type.String(), Label)),
});
export type RepoConfig = Static<typeof RepoConfigShape>;

export const TokenizerConfigShape = Type.Object({
  tokenizer_class: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  source_lang: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  target_lang: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** sentence-transformers' 1_Pooling/config.json: flags, plus the embedding size. */
export const PoolingConfigShape = Type.Record(Type.String(), Type.Unknown());

export const SentenceTransformersConfigShape = Type.Object({
  prompts: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});

/** A Piper voice's `.onnx.json`: what the entry's description, languages and speakers come from (parsePiperVoiceConfig checks the rest). */
export const PiperVoiceJsonShape = Type.Object({
  audio: Type.Optional(Type.Object({ quality: Type.Optional(Type.String()) })),
  language: Type.Optional(
    Type.Object({
      code: Type.Optional(Type.String()),
      family: Type.Optional(Type.String()),
      region: Type.Optional(Type.String()),
      name_english: Type.Optional(Type.String()),
      country_english: Type.Optional(Type.String()),
    }),
  ),
  speaker_id_map: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
});
export type PiperVoiceJson = Static<typeof PiperVoiceJsonShape>;

const ajv = new Ajv({ allErrors: false, strict: true });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** `value` typed by `schema`, or an InstallError "<where>: /architectures/0 must be string". */
export function checkShape<S extends TSchema>(schema: S, value: unknown, where: string): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return value as Static<S>;
  throw new InstallError(`${where} is not what this installer reads: ${describe(validate.errors?.[0])}`);
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'unexpected shape';
  const at = error.instancePath === '' ? 'the top level' : error.instancePath;
  return `${at} ${error.message ?? 'is invalid'}`;
}
