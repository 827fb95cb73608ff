/**
 * Closes a test's HTTP server, if its `before()` got as far as making one. A `before()` that
 * skipped leaves it undefined, and a promise resolved by an optional-chained `close` call would
 * then never settle: the `after()` hook hung for its whole timeout.
 */
import type { Server } from 'node:http';

export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
