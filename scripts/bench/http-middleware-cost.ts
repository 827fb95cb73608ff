/**
 * What each piece of our GET /users path costs per request, in one process and without a
 * network: Koa's floor (one middleware answering from the prepared statement, as in bench:http)
 * with our middleware added one at a time in the app's order, then the users router, then the
 * store over Kysely instead of the bare statement, then the whole app from createApp
 * (lib/http-variants.ts, which bench:http also serves under wrk with BENCH_VARIANTS). Requests
 * are real `IncomingMessage`/`ServerResponse` objects on a socket that discards what is written,
 * sent one at a time, so what is priced is our CPU per request, not the machine's scheduling.
 *
 * The table holds one user, so the query and its JSON (~200 µs for bench:http's 100) do not
 * drown the few µs each piece costs. Variants run in interleaved rounds; each keeps its best
 * (lowest) round, since a shared machine only ever slows a round down.
 *
 *   npx tsx scripts/bench/http-middleware-cost.ts
 *
 * Env: BENCH_ROUNDS (9), BENCH_REQUESTS per variant and round (5000), BENCH_VARIANTS (a comma
 * list, e.g. "app" to run under `node --cpu-prof --import tsx`). Under a minute.
 */
import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { loadAverage } from '../eval/lib/load-average.js';
import { ALL_VARIANTS, buildVariant as build, type Variant } from './lib/http-variants.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const VARIANTS = ALL_VARIANTS.filter((variant) => (process.env.BENCH_VARIANTS?.split(',') ?? ALL_VARIANTS).includes(variant));

/** Stands in for a kept-alive connection: discards writes and counts bytes as net.Socket does. */
class DiscardingSocket extends Duplex {
  bytesRead = 0;
  bytesWritten = 0;
  readonly remoteAddress = '127.0.0.1';
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.bytesWritten += chunk.length;
    done();
  }
  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    for (const { chunk } of chunks) this.bytesWritten += chunk.length;
    done();
  }
  setTimeout(): this {
    return this;
  }
}

function get(handle: RequestListener, socket: DiscardingSocket, url: string): Promise<number> {
  const req = new IncomingMessage(socket as never);
  Object.assign(req, { method: 'GET', url, httpVersion: '1.1', httpVersionMajor: 1, httpVersionMinor: 1, complete: true });
  req.headers = { host: '127.0.0.1', 'user-agent': 'bench' };
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve) => {
    res.on('finish', () => {
      res.detachSocket(socket as never);
      resolve(res.statusCode);
    });
    void handle(req, res);
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-http-cost-'));
  const databasePath = join(dir, 'bench.db');
  try {
    const { openDatabase } = await import('../../src/users/open-database.js');
    const { createUserStore } = await import('../../src/users/user-store.js');
    const db = await openDatabase(databasePath);
    await createUserStore(db).create({ name: 'Bench User', email: 'user@bench.example' });
    await db.destroy();

    const handlers = new Map<Variant, RequestListener>();
    for (const variant of VARIANTS) handlers.set(variant, await build(variant, databasePath));
    const socket = new DiscardingSocket();
    for (const [variant, handle] of handlers) {
      for (let i = 0; i < REQUESTS; i++) {
        const status = await get(handle, socket, '/users');
        if (status !== 200) throw new Error(`${variant}: GET /users answered ${status}`);
      }
    }
    console.log(`GET /users (1 user), ${ROUNDS} interleaved rounds of ${REQUESTS} sequential requests per variant, in process; load ${loadAverage()}`);
    const best = new Map<Variant, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const variant of order) {
        const handle = handlers.get(variant)!;
        const started = process.cpuUsage();
        for (let i = 0; i < REQUESTS; i++) await get(handle, socket, '/users');
        const { user, system } = process.cpuUsage(started);
        best.set(variant, Math.min(best.get(variant) ?? Infinity, (user + system) / REQUESTS));
      }
    }
    console.log(`load after ${loadAverage()}`);
    const floor = best.get('floor') ?? 0;
    let previous = floor;
    for (const variant of VARIANTS) {
      const micros = best.get(variant)!;
      const step = variant === 'floor' || variant === 'app' ? '' : `step ${micros - previous >= 0 ? '+' : ''}${(micros - previous).toFixed(1)} µs`;
      console.log(`${variant.padEnd(18)} ${micros.toFixed(1).padStart(6)} µs CPU/request, ${(micros - floor).toFixed(1).padStart(5)} over the floor  ${step}`);
      previous = micros;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
