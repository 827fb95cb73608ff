/**
 * The replica test's verdict: what it checks of a run, from the clients' samples, the database's
 * rows, HAProxy's counters, the rate-limit burst and the key's usage (scripts/replica-test.ts).
 */
import type { BalancerStats, Cluster, Replica } from './cluster.js';
import type { Exchange } from './http-client.js';
import type { Sample } from './mixed-load.js';
import type { Verification } from './write-ledger.js';

const RATE_TOLERANCE = 0.05;

/**
 * A request in flight on a replica that dies fails as soon as its connection is reset, through
 * HAProxy in one of two ways: a 502 whose X-Served-By names the replica, or, when the request
 * was not the first on its client connection, no answer at all (HAProxy closes the client
 * connection so that the client may retry, and logs nothing: http_ana.c "abort_keep_alive").
 * Either counts as in flight on the killed replica if it started before the process was gone
 * and ended after the kill, within this long of it; any other failure fails the test.
 */
const KILL_FAILURE_WINDOW_MS = 1_000;

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

/** When the failures happened (performance.now() times). */
export interface Events {
  /** Requests HAProxy counted in progress on the replica just before it was killed. */
  inFlightOnKilled: number;
  killCall: number;
  killExit: number;
  killedReady: number;
  killedUp: number;
  drainCall: number;
  drainExit: number;
  drainedUp: number;
}

/** What the rate-limited key's burst got. */
export interface Burst {
  admitted: Map<string, number>;
  refused: number;
  /** 429s without Retry-After or without the rate_limited code. */
  malformedRefusals: number;
  other: Exchange[];
  seconds: number;
}

/** What one run of the replica test observed: judged here, printed by replica-report.ts. */
export interface ReplicaRun {
  cluster: Cluster;
  samples: Sample[];
  verification: Verification;
  events: Events;
  killed: Replica;
  drained: Replica;
  t0: number;
  t1: number;
  burst: Burst;
  balancer: Map<string, BalancerStats>;
}

export function judge(input: ReplicaRun & { staleReads: string[]; rpm: number; usage: number | undefined }): Check[] {
  const { samples, events, killed, drained, burst, rpm, verification } = input;
  const failed = samples.filter((sample) => !sample.ok);
  const inFlightOnKilled = (sample: Sample) =>
    sample.start <= events.killExit &&
    sample.end >= events.killCall &&
    sample.end <= events.killExit + KILL_FAILURE_WINDOW_MS &&
    (sample.status === 502 ? sample.servedBy === killed.name : sample.status === 0 && sample.servedBy === undefined);
  const unexplained = failed.filter((sample) => !inFlightOnKilled(sample));
  // HAProxy's own view: failed responses and server aborts on no replica but the killed one.
  const failingElsewhere = [...input.balancer].filter(([name, b]) => name !== killed.name && b.failedResponses + b.serverAborts > 0).map(([name]) => name);
  const others = input.cluster.replicas.filter((replica) => replica !== killed);
  const servedWhileDown = others.map((replica) => served(samples, replica.name, events.killExit, events.killedUp));
  const gaps = emptySeconds(samples, input.t0, input.t1);
  const admitted = [...burst.admitted.values()].reduce((sum, n) => sum + n, 0);
  const low = Math.floor(rpm * (1 - RATE_TOLERANCE));
  const high = Math.ceil(rpm * (1 + RATE_TOLERANCE));
  return [
    {
      name: 'zero acknowledged writes lost',
      pass: verification.lost.length === 0 && verification.unexplained.length === 0,
      detail: [
        `${verification.checked} users compared with PostgreSQL`,
        ...verification.lost.slice(0, 5),
        ...verification.unexplained.slice(0, 5).map((row) => `unexplained row: ${row}`),
      ].join('; '),
    },
    {
      name: 'every read returned the last acknowledged write',
      pass: input.staleReads.length === 0,
      detail: input.staleReads.slice(0, 3).join('; ') || `${samples.filter((s) => s.kind === 'read').length} reads`,
    },
    {
      name: `failed requests only those in flight on ${killed.name} when killed`,
      pass: unexplained.length === 0 && failingElsewhere.length === 0,
      detail:
        `${failed.length} failed, ${failed.length - unexplained.length} in flight on ${killed.name}` +
        (unexplained.length
          ? `; others: ${unexplained
              .slice(0, 5)
              .map((sample) => describeFailure(sample, input.t0))
              .join(', ')}`
          : '') +
        `; HAProxy counted failed responses or aborts on ${failingElsewhere.length ? failingElsewhere.join(', ') : `no other replica`}`,
    },
    {
      name: `the other replicas served while ${killed.name} was down`,
      pass: servedWhileDown.every((n) => n > 0) && gaps.length === 0,
      detail: `${others.map((replica, i) => `${replica.name} ${servedWhileDown[i]}`).join(', ')} ok answers; seconds without any: ${gaps.length ? gaps.join(', ') : 'none'}`,
    },
    {
      name: `${killed.name} (killed) and ${drained.name} (drained) served again after restart`,
      pass: served(input.samples, killed.name, events.killedUp, input.t1) > 0 && served(input.samples, drained.name, events.drainedUp, input.t1) > 0,
      detail: `${served(input.samples, killed.name, events.killedUp, input.t1)} and ${served(input.samples, drained.name, events.drainedUp, input.t1)} ok answers after rejoining`,
    },
    {
      name: `a ${rpm}-per-minute key admitted ${rpm} ± ${RATE_TOLERANCE * 100} % across the replicas`,
      pass:
        admitted >= low &&
        admitted <= high &&
        burst.admitted.size === input.cluster.replicas.length &&
        burst.malformedRefusals === 0 &&
        burst.other.length === 0 &&
        burst.seconds < 55,
      detail:
        `${admitted} admitted (${[...burst.admitted].map(([name, n]) => `${name} ${n}`).join(', ')}), ${burst.refused} refused with 429, ` +
        `${burst.malformedRefusals} without Retry-After or rate_limited, ${burst.other.length} other, in ${burst.seconds.toFixed(1)} s`,
    },
    { name: 'the key usage counted by the replicas adds up', pass: input.usage === admitted, detail: `keys list: ${input.usage} requests` },
  ];
}

/** Successful answers from `name` among requests started in [from, to). */
export const served = (samples: Sample[], name: string, from: number, to: number) =>
  samples.filter((sample) => sample.ok && sample.servedBy === name && sample.start >= from && sample.start < to).length;

/** Whole seconds of the run (the last partial one excluded) in which no request succeeded. */
export function emptySeconds(samples: Sample[], t0: number, t1: number): number[] {
  const seconds = Math.floor((t1 - t0) / 1000);
  const ok = new Array<number>(seconds).fill(0);
  for (const sample of samples) {
    const second = Math.floor((sample.end - t0) / 1000);
    if (sample.ok && second < seconds) ok[second]! += 1;
  }
  return ok.flatMap((n, second) => (n === 0 ? [second] : []));
}

/** One failed request for a report line: what, how it failed, and when (seconds after `t0`). */
export const describeFailure = (sample: Sample, t0: number) =>
  `${sample.method} ${sample.path.replace(/\d+$/, ':id')} → ${sample.status ? `${sample.status} via ${sample.servedBy ?? '?'}` : `no answer (${sample.error})`} (${((sample.start - t0) / 1000).toFixed(2)}–${((sample.end - t0) / 1000).toFixed(2)} s)`;
