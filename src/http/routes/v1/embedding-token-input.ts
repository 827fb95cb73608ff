/**
 * `input` sent as token ids, as OpenAI's spec allows: one array of ids, or an array of them.
 * The JSON Schema union cannot phrase what is wrong with such an input (its errors are phrased
 * for texts: validation.ts picks the union's branch by JSON type, and every shape here is an
 * array), so this checks it by hand, with OpenAI's own limits, before the schema sees the body.
 */
import { PayloadTooLargeError, ValidationError } from '../../../errors.js';

/** OpenAI's limits for token-id input (CreateEmbeddingRequest). */
export const TOKEN_LIMITS = Object.freeze({
  inputs: 2048,
  tokensPerInput: 8192,
  tokensPerRequest: 300_000,
});

/** Ids above this cannot be any tokenizer's (and fit the Int32Array they are sent to the decoder in). */
const MAX_ID = 0x7fff_ffff;

export interface TokenInput {
  /** One array of ids per input. */
  inputs: number[][];
  /** `input` was one array of ids rather than an array of them (error messages name `input[j]`). */
  flat: boolean;
  tokens: number;
}

/** The token-id input of a body, checked; undefined when `input` is not token ids (texts, or invalid for the schema to phrase). */
export function tokenInput(input: unknown): TokenInput | undefined {
  if (!Array.isArray(input) || input.length === 0) return undefined;
  const first: unknown = input[0];
  if (typeof first === 'number') return checked([input], true);
  if (Array.isArray(first)) return checked(input, false);
  return undefined;
}

function checked(inputs: unknown[], flat: boolean): TokenInput {
  if (inputs.length > TOKEN_LIMITS.inputs) {
    throw new ValidationError(`"input" holds ${inputs.length} token arrays; the limit is ${TOKEN_LIMITS.inputs}`, 'input');
  }
  const name = (index: number) => (flat ? 'input' : `input[${index}]`);
  let tokens = 0;
  inputs.forEach((ids, index) => {
    if (!Array.isArray(ids)) throw new ValidationError(`"${name(index)}" must be an array of token ids, as the other items are`, name(index));
    if (ids.length === 0) throw new ValidationError(`"${name(index)}" must hold at least one token id`, name(index));
    if (ids.length > TOKEN_LIMITS.tokensPerInput) {
      throw new ValidationError(`"${name(index)}" holds ${ids.length} tokens; the limit is ${TOKEN_LIMITS.tokensPerInput} per input`, name(index));
    }
    const bad = ids.findIndex((id: unknown) => !(typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= MAX_ID));
    if (bad !== -1) {
      const param = `${name(index)}[${bad}]`;
      throw new ValidationError(`"${param}" must be a token id (an integer from 0), not ${shown(ids[bad])}`, param);
    }
    tokens += ids.length;
  });
  if (tokens > TOKEN_LIMITS.tokensPerRequest) {
    throw new PayloadTooLargeError(
      `"input" holds ${tokens} tokens in ${inputs.length} arrays; the limit is ${TOKEN_LIMITS.tokensPerRequest} per request: send smaller batches`,
    );
  }
  return { inputs: inputs as number[][], flat, tokens };
}

/** A wrong value as a message shows it: a number as itself, anything else by its kind (it may be large). */
function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
