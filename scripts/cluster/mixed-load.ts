/**
 * The replica test's traffic: `connections` clients, each sending one request after another
 * until the deadline (or the request budget is spent): area A writes and reads of the client's
 * own users, and classifications. Every acknowledged write goes into the ledger; every read
 * is compared with what the ledger says the row holds.
 */
import type { Agent } from 'node:http';
import { exchange, type Exchange } from './http-client.js';
import type { UserContent, WriteLedger } from './write-ledger.js';

export type Kind = 'create' | 'read' | 'update' | 'delete' | 'classify';

export interface Sample extends Omit<Exchange, 'body'> {
  kind: Kind;
  /** The answer the operation expects (201, 200, 204 with a body that checks out). */
  ok: boolean;
}

export interface LoadOptions {
  agent: Agent;
  base: URL;
  connections: number;
  durationMs: number;
  /** Upper bound on requests, whatever the speed. */
  maxRequests: number;
  timeoutMs: number;
  apiKey: string;
  model: string;
  /** Makes emails unique to this run. */
  tag: string;
}

export interface LoadResult {
  samples: Sample[];
  /** Reads that did not return the last acknowledged write. */
  staleReads: string[];
}

/** Users a client keeps at once; past it, the client classifies instead of creating. */
const USERS_PER_CLIENT = 8;
const QUERIES = ['a gorgeous, witty, seductive movie', 'the service was slow and the food was cold', 'it works as described', 'never again'];

export async function runMixedLoad(options: LoadOptions, ledger: WriteLedger): Promise<LoadResult> {
  const samples: Sample[] = [];
  const staleReads: string[] = [];
  const deadline = performance.now() + options.durationMs;
  let budget = options.maxRequests;
  const send = (method: string, path: string, json?: unknown, headers?: Record<string, string>) =>
    exchange(options.agent, options.base, method, path, { json, headers, timeoutMs: options.timeoutMs });
  const record = (kind: Kind, result: Exchange, ok: boolean) => {
    const { body: _body, ...rest } = result;
    samples.push({ ...rest, kind, ok });
  };
  /** No answer, or a 5xx: the write may or may not have happened. */
  const unknownOutcome = (result: Exchange) => result.status === 0 || result.status >= 500;

  async function client(index: number): Promise<void> {
    const mine: number[] = [];
    let sequence = 0;
    const content = (): UserContent => {
      sequence += 1;
      return { name: `Client ${index} user ${sequence}`, email: `c${index}-${sequence}-${options.tag}@replica-test.example` };
    };
    while (performance.now() < deadline && budget > 0) {
      budget -= 1;
      const dice = Math.random();
      const id = mine[Math.floor(Math.random() * mine.length)];
      if (id === undefined || (dice < 0.2 && mine.length < USERS_PER_CLIENT)) {
        const user = content();
        const result = await send('POST', '/users', user);
        const created = result.status === 201 ? (JSON.parse(result.body) as { id: number } & UserContent) : undefined;
        const ok = created !== undefined && created.name === user.name && created.email === user.email;
        if (created) {
          ledger.created(created.id, user);
          mine.push(created.id);
        } else if (unknownOutcome(result)) ledger.unansweredCreate(user);
        record('create', result, ok);
      } else if (dice < 0.6) {
        const result = await send(
          'POST',
          '/v1/classifications',
          { model: options.model, query: QUERIES[index % QUERIES.length] },
          { Authorization: `Bearer ${options.apiKey}` },
        );
        const ok = result.status === 200 && Array.isArray((JSON.parse(result.body) as { labels?: unknown }).labels);
        record('classify', result, ok);
      } else if (dice < 0.75) {
        const expected = ledger.expected(id);
        const result = await send('GET', `/users/${id}`);
        const row = result.status === 200 ? (JSON.parse(result.body) as UserContent) : undefined;
        const ok = row !== undefined && expected !== undefined && expected !== null && row.name === expected.name && row.email === expected.email;
        if (!ok && (result.status === 200 || result.status === 404)) {
          staleReads.push(`GET /users/${id} answered ${result.status} ${result.body.slice(0, 200)}, expected ${JSON.stringify(expected)}`);
        }
        record('read', result, ok);
      } else if (dice < 0.9) {
        const user = content();
        const result = await send('PUT', `/users/${id}`, user);
        const ok = result.status === 200;
        if (ok) ledger.updated(id, user);
        else {
          if (unknownOutcome(result)) ledger.unanswered(id, user);
          mine.splice(mine.indexOf(id), 1);
        }
        record('update', result, ok);
      } else {
        const result = await send('DELETE', `/users/${id}`);
        const ok = result.status === 204;
        if (ok) ledger.deleted(id);
        else if (unknownOutcome(result)) ledger.unanswered(id, null);
        mine.splice(mine.indexOf(id), 1);
        record('delete', result, ok);
      }
    }
  }

  await Promise.all(Array.from({ length: options.connections }, (_, index) => client(index)));
  return { samples, staleReads };
}
