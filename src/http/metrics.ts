/**
 * Prometheus metrics (prom-client, one registry per app: no globals) and the access log: one
 * line per request with method, route, status, duration, request id and which key was used,
 * never the key itself.
 */
import { Stream } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { API_KEY_PREFIX, bearerToken, displayPrefix, hashApiKey } from '../auth/api-key.js';
import type { ModelRegistry } from '../inference/model-registry.js';
import type { Task } from '../inference/types.js';
import type { Logger } from '../logger.js';
import type { InferenceObserver } from './scoped-models.js';

/** Requests no route matched share one label, so random paths cannot grow the series without bound. */
const UNMATCHED = '(unmatched)';
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface AdmissionObserver {
  pending(task: Task, count: number): void;
  rejected(task: Task): void;
}

export class AppMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
    collect: () => this.#reportRequests(),
  });
  readonly #duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #pending = new Gauge({
    name: 'admission_pending_requests',
    help: 'Inference requests held (running, queued or uploading) by task.',
    labelNames: ['task'],
    registers: [this.registry],
  });
  readonly #rejected = new Counter({
    name: 'admission_rejected_total',
    help: 'Inference requests refused with 503 server_busy, by task.',
    labelNames: ['task'],
    registers: [this.registry],
  });
  readonly #loads = new Counter({
    name: 'model_loads_total',
    help: 'Model loads by model and outcome (loaded | failed).',
    labelNames: ['model', 'outcome'],
    registers: [this.registry],
  });
  readonly #inferenceSeconds = new Histogram({
    name: 'inference_seconds',
    help: 'Time of each model call (classify, translate, transcribe, speak until its last chunk, embed), by model, task and outcome (ok | error).',
    labelNames: ['model', 'task', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #audioSeconds = new Counter({
    name: 'processed_audio_seconds_total',
    help: 'Seconds of audio transcribed, by model.',
    labelNames: ['model'],
    registers: [this.registry],
  });
  readonly #characters = new Counter({
    name: 'processed_characters_total',
    help: 'Characters of text classified, translated, spoken or embedded, by model and task.',
    labelNames: ['model', 'task'],
    registers: [this.registry],
  });
  readonly #unloads = new Counter({
    name: 'model_unloads_total',
    help: 'Model unloads by model and reason (idle: its time-out passed; memory: evicted to keep MODELS_MAX_MEMORY, for a load or after a measurement; admin: by the API).',
    labelNames: ['model', 'reason'],
    registers: [this.registry],
  });
  readonly #loadSeconds = new Histogram({
    name: 'model_load_seconds',
    help: 'Time to load a model.',
    labelNames: ['model'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  constructor(models: ModelRegistry) {
    collectDefaultMetrics({ register: this.registry });
    // Read at scrape time from the registry, so an unloaded model's series goes away with it.
    new Gauge({
      name: 'model_memory_bytes',
      help: 'Memory each model in memory counts against MODELS_MAX_MEMORY: its measured load and first call, else the size of its files.',
      labelNames: ['model', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { id, state, bytes } of models.residents()) this.set({ model: id, state }, bytes);
      },
    });
    models.onLoad(({ modelId, seconds, ok }) => {
      this.#loads.inc({ model: modelId, outcome: ok ? 'loaded' : 'failed' });
      if (ok) this.#loadSeconds.observe({ model: modelId }, seconds);
    });
    models.onUnload(({ modelId, reason }) => this.#unloads.inc({ model: modelId, reason }));
  }

  readonly inference: InferenceObserver = {
    call: ({ model, task, seconds, ok, usage }) => {
      this.#inferenceSeconds.observe({ model, task, outcome: ok ? 'ok' : 'error' }, seconds);
      if (usage?.audioSeconds) this.#audioSeconds.inc({ model }, usage.audioSeconds);
      if (usage?.characters) this.#characters.inc({ model, task }, usage.characters);
    },
  };

  readonly admission: AdmissionObserver = {
    pending: (task, count) => this.#pending.set({ task }, count),
    rejected: (task) => this.#rejected.inc({ task }),
  };

  /**
   * The request series by route, then method, then status: no key string is built per request.
   * prom-client's Counter hashes and checks its labels on every `inc` (~1 µs, bench:http), so a
   * request only adds to the series' own count, which reaches the Counter when it is read.
   */
  readonly #series = new Map<string, Map<string, Map<number, RequestSeries>>>();

  /** Counts one finished request; `route` is the matched route pattern, if any; `seconds` undefined: not timed. */
  record(method: string, route: string | undefined, status: number, seconds?: number): void {
    const series = this.#seriesOf(method, route ?? UNMATCHED, status);
    series.unreported++;
    if (seconds !== undefined) series.duration.observe(seconds);
  }

  #seriesOf(method: string, route: string, status: number): RequestSeries {
    let byMethod = this.#series.get(route);
    if (!byMethod) this.#series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { labels, unreported: 0, duration: this.#duration.labels(labels) };
      byStatus.set(status, series);
    }
    return series;
  }

  /** Hands the counts recorded since the last read to the Counter (its `collect`, run on every read). */
  #reportRequests(): void {
    for (const byMethod of this.#series.values()) {
      for (const byStatus of byMethod.values()) {
        for (const series of byStatus.values()) {
          if (series.unreported === 0) continue;
          this.#requests.inc(series.labels, series.unreported);
          series.unreported = 0;
        }
      }
    }
  }
}

interface RequestSeries {
  labels: { method: string; route: string; status: string };
  /** Requests counted here and not yet added to http_requests_total. */
  unreported: number;
  duration: ReturnType<Histogram['labels']>;
}

/**
 * Outermost middleware: times each request until its answer is complete, then counts it and
 * writes its access-log line. A streamed body (speech, server-sent events) is timed until its
 * response closes; any other body is ready when the middleware chain returns, and a listener per
 * response would only cost time on the hot paths (bench:http). No closure is made per request
 * unless the body streams.
 */
export function observeRequests(metrics: AppMetrics, logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (ctx.body instanceof Stream && !ctx.res.writableEnded) ctx.res.once('close', () => requestDone(metrics, logger, ctx, started));
      else requestDone(metrics, logger, ctx, started);
    }
  };
}

function requestDone(metrics: AppMetrics, logger: Logger, ctx: Context, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  // @koa/router's public `routerPath`: the path of the route that ran (its pattern, `/users/:id`).
  const route = (ctx as { routerPath?: string }).routerPath;
  // A response cut off by the client never finished: logged with the status it was given.
  metrics.record(ctx.method, route, ctx.status, seconds);
  if (!logger.enabled('info')) return;
  logRequest(logger, {
    method: ctx.method,
    route,
    status: ctx.status,
    seconds,
    requestId: ctx.response.get('X-Request-Id'),
    authorization: ctx.get('Authorization'),
    aborted: ctx.res.destroyed && !ctx.res.writableFinished,
  });
}

/**
 * What the request listener reports of the constant answers it writes itself
 * (constant-responses.ts): counted, not timed (they are written at once), and logged.
 */
export function observeConstantAnswers(
  metrics: AppMetrics,
  logger: Logger,
): (answer: { method: string; path: string; requestId: string; authorization: string | undefined }) => void {
  return ({ method, path, requestId, authorization }) => {
    metrics.record(method, path, 200);
    logRequest(logger, { method, route: path, status: 200, seconds: 0, requestId, authorization, aborted: false });
  };
}

/** The access-log line of one request; nothing is built when info lines are not written. */
function logRequest(
  logger: Logger,
  line: { method: string; route: string | undefined; status: number; seconds: number; requestId: string; authorization: string | undefined; aborted: boolean },
): void {
  if (!logger.enabled('info')) return;
  logger.info('request', {
    method: line.method,
    route: line.route ?? UNMATCHED,
    status: line.status,
    ms: Math.round(line.seconds * 10_000) / 10,
    requestId: line.requestId || undefined,
    key: keyLabel(line.authorization ?? ''),
    ...(line.aborted ? { aborted: true } : {}),
  });
}

/**
 * How the access log names a key: our generated keys by their display prefix (what `keys list`
 * shows), any other key by a short hash, so a static key is never written, even in part.
 */
export function keyLabel(authorization: string): string | undefined {
  const key = bearerToken(authorization);
  if (!key) return undefined;
  return key.startsWith(API_KEY_PREFIX) ? displayPrefix(key) : `sha256:${hashApiKey(key).toString('hex').slice(0, 8)}`;
}
