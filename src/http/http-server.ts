/**
 * The node:http server under the app, with the connection time-outs of ClientTimeouts. These
 * bound what happens before the app sees a request; the body and response checks are in
 * slow-client-guard.ts.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { ClientTimeouts } from '../config/load-config.js';

/**
 * Node enforces headersTimeout and requestTimeout only when it sweeps its connections, every
 * 30 s by default, so a slow-headers client was cut between the documented figure and 30 s
 * later. Sweeping every second (a walk over the open connections) holds the figure to within it.
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

export function createHttpServer(handler: RequestListener, timeouts: ClientTimeouts): Server {
  return createServer(
    {
      connectionsCheckingInterval: Math.min(CONNECTIONS_CHECKING_INTERVAL_MS, timeouts.headersMs),
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
    },
    handler,
  );
}
