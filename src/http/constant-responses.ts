/**
 * Answers that are fixed for the life of an app (the greeting at `/`), served straight from the
 * request listener instead of through Koa.
 *
 * Why: `GET /` is what liveness probes and load balancers call all day, and Koa itself, before any
 * of our middleware, costs a large share of a bare `node:http` answer per request
 * (docs/benchmarks.md, "HTTP layer"). Nothing in the middleware chain can change these answers: the
 * path needs no key (api-boundary.ts), there is no body to read or guard, and the body is small
 * enough to leave in one write, so the slow-client guard has nothing to watch.
 *
 * Only exact `GET`/`HEAD` requests without a body or an Origin take this path; any other spelling (a query
 * string, a body, another method) goes through Koa and the same router, which serves the same
 * table (root-router.ts), so both paths answer alike (test/http/constant-responses.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** The parts of a request and response used here (node:http's, or its HTTP/2 compatibility ones). */
interface Request {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}
interface Response {
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  end(body: Buffer): unknown;
}

export interface ConstantResponse {
  contentType: string;
  body: string;
}

/** Larger bodies stay on the Koa path, where an unread response is cut off by the slow-client guard. */
const MAX_FAST_BODY_BYTES = 4_096;

/**
 * A listener step that answers `responses[req.url]` and returns true, or returns false and
 * leaves the request untouched for the app.
 */
export function constantResponder(
  responses: Readonly<Record<string, ConstantResponse>>,
  /** Told of each answer, for the metrics and the access log (metrics.ts). */
  answered: (request: { method: string; path: string; requestId: string; authorization: string | undefined }) => void = () => {},
): (req: Request, res: Response) => boolean {
  const answers = new Map<string, { contentType: string; body: Buffer }>();
  for (const [path, { contentType, body }] of Object.entries(responses)) {
    const bytes = Buffer.from(body);
    if (bytes.length <= MAX_FAST_BODY_BYTES) answers.set(path, { contentType, body: bytes });
  }
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const answer = answers.get(req.url ?? '');
    // A browser's cross-origin request goes through Koa, where CORS answers it (cors.ts).
    if (answer === undefined || hasBody(req) || req.headers.origin !== undefined) return false;
    // As the error middleware does for every other response (Node joins repeated headers).
    const incoming = req.headers['x-request-id'];
    const requestId = (typeof incoming === 'string' && incoming.slice(0, 128)) || randomUUID();
    res.writeHead(200, {
      'X-Request-Id': requestId,
      'Content-Type': answer.contentType,
      'Content-Length': answer.body.length,
    });
    // Node sends no body for HEAD by itself.
    res.end(answer.body);
    answered({ method: req.method, path: req.url!, requestId, authorization: req.headers.authorization });
    return true;
  };
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
