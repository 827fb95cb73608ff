/**
 * What the Files and Batch API's routes share, shaped as OpenAI's: the page a list answers, its
 * `after` and `limit` query, and the path parameter naming one object by id.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ValidationError } from '../../../errors.js';

/** OpenAI's list object: a page of `item`s, the first and last id on it, and whether more follow. */
export function ListPage(item: TSchema, $id: string) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      first_id: Type.Optional(Type.String()),
      last_id: Type.Optional(Type.String()),
      has_more: Type.Boolean(),
    },
    { $id },
  );
}

/** The list body for a page of `data`, `ids` being theirs in the same order. */
export function listPage(data: unknown[], ids: readonly string[], hasMore: boolean): Record<string, unknown> {
  return { object: 'list', data, ...(ids.length > 0 ? { first_id: ids[0], last_id: ids.at(-1) } : {}), has_more: hasMore };
}

export const idParameter = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

export const afterParameter = { name: 'after', in: 'query', required: false, schema: { type: 'string' } };

export const limitParameter = (maximum: number, fallback: number) => ({
  name: 'limit',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1, maximum, default: fallback },
});

/** `after` and `limit` from a list request's query (`limit` from 1 to `maximum`, `fallback` when absent). */
export function pageQuery(query: Record<string, unknown>, maximum: number, fallback: number): { limit: number; after?: string } {
  const limit = queryInteger(query.limit, 'limit', 1, maximum) ?? fallback;
  return typeof query.after === 'string' ? { limit, after: query.after } : { limit };
}

/** A whole number from a query string or form field, in a range; undefined when absent. */
export function queryInteger(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || number < min || number > max) {
    throw new ValidationError(`"${name}" must be a whole number from ${min} to ${max}`, name);
  }
  return number;
}
