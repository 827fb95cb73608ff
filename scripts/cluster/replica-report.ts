/** The replica test's figures: phases, operations, failures, HAProxy's counters, then the checks. */
import { cpus } from 'node:os';
import { loadAverage } from '../eval/lib/load-average.js';
import type { Sample } from './mixed-load.js';
import { describeFailure, type Check, type ReplicaRun } from './replica-verdict.js';
import type { WriteLedger } from './write-ledger.js';

export function report(
  input: ReplicaRun & {
    ledger: WriteLedger;
    options: { replicas: number; connections: number; durationMs: number; loadBefore: string };
    haproxy502: Map<string, number>;
    checks: Check[];
  },
): void {
  const { samples, events, t0, t1, killed, drained } = input;
  const s = (t: number) => ((t - t0) / 1000).toFixed(1);
  const phases: [string, number, number][] = [
    ['all replicas up', t0, events.killCall],
    [`${killed.name} killed, until HAProxy sees it up`, events.killCall, events.killedUp],
    ['all replicas up', events.killedUp, events.drainCall],
    [`${drained.name} draining and restarting`, events.drainCall, events.drainedUp],
    ['all replicas up', events.drainedUp, t1],
  ];
  const names = input.cluster.replicas.map((replica) => replica.name);
  const lines = [
    '',
    `Replica test: ${input.options.replicas} replicas behind HAProxy, ${input.options.connections} connections, ${input.options.durationMs / 1000} s, ` +
      `${cpus().length} CPUs, load average ${input.options.loadBefore} before, ${loadAverage()} after`,
    `${killed.name}: kill -9 at ${s(events.killCall)} s (gone at ${s(events.killExit)} s), restarted ${s(events.killedReady)} s (ready), up in HAProxy ${s(events.killedUp)} s; ` +
      `${drained.name}: SIGTERM at ${s(events.drainCall)} s, exited ${s(events.drainExit)} s, up again ${s(events.drainedUp)} s`,
    '',
    table(
      ['phase', 'from s', 'to s', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'failed', ...names.map((name) => `${name} ok`)],
      phases.map(([name, from, to]) => {
        const inPhase = samples.filter((sample) => sample.start >= from && sample.start < to);
        const ms = inPhase.map((sample) => sample.end - sample.start).sort((a, b) => a - b);
        return [
          name,
          s(from),
          s(to),
          String(inPhase.length),
          (inPhase.length / Math.max(0.001, (to - from) / 1000)).toFixed(0),
          percentile(ms, 0.5).toFixed(1),
          percentile(ms, 0.99).toFixed(1),
          String(inPhase.filter((sample) => !sample.ok).length),
          ...names.map((n) => String(inPhase.filter((sample) => sample.ok && sample.servedBy === n).length)),
        ];
      }),
    ),
    '',
    table(
      ['operation', 'requests', 'ok', 'failed', 'p50 ms', 'p99 ms'],
      (['create', 'read', 'update', 'delete', 'classify'] as const).map((kind) => {
        const of = samples.filter((sample) => sample.kind === kind);
        const ms = of.map((sample) => sample.end - sample.start).sort((a, b) => a - b);
        const ok = of.filter((sample) => sample.ok).length;
        return [kind, String(of.length), String(ok), String(of.length - ok), percentile(ms, 0.5).toFixed(1), percentile(ms, 0.99).toFixed(1)];
      }),
    ),
    '',
    `Writes acknowledged: ${input.ledger.counts.created} created, ${input.ledger.counts.updated} updated, ${input.ledger.counts.deleted} deleted; ` +
      `${input.ledger.counts.unanswered} unanswered (outcome unknown, either state accepted); PostgreSQL compared for ${input.verification.checked} users.`,
    failureSummary(
      samples.filter((sample) => !sample.ok),
      input.haproxy502,
      t0,
    ),
    `In flight at the kill: ${events.inFlightOnKilled} on ${killed.name} as HAProxy counted just before it, ` +
      `${samples.filter((sample) => sample.start <= events.killExit && sample.end >= events.killCall).length} on all replicas as the clients saw them.`,
    `HAProxy's counters: ${[...input.balancer].map(([name, b]) => `${name} ${b.failedResponses} failed responses, ${b.serverAborts} server aborts, ${b.retries} retries, ${b.redispatches} redispatches`).join('; ')}.`,
    '',
    ...input.checks.map((check) => `${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function failureSummary(failed: Sample[], haproxy502: Map<string, number>, t0: number): string {
  if (failed.length === 0) return 'Failed requests: none.';
  const count = (key: (sample: Sample) => string) => {
    const counts = new Map<string, number>();
    for (const sample of failed) counts.set(key(sample), (counts.get(key(sample)) ?? 0) + 1);
    return [...counts].map(([name, n]) => `${n} ${name}`).join(', ');
  };
  return [
    `Failed requests: ${failed.length}: ${count((sample) => (sample.status ? `${sample.status} via ${sample.servedBy ?? '?'}` : 'without an answer'))}; ` +
      `${count((sample) => sample.kind)}; HAProxy logged 502 for ${[...haproxy502].map(([name, n]) => `${name} ${n}`).join(', ') || 'none'}; requests it closed without an answer are not logged.`,
    `First failures: ${failed
      .slice(0, 4)
      .map((sample) => describeFailure(sample, t0))
      .join(', ')}${failed.length > 4 ? ', …' : ''}`,
  ].join('\n');
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 2)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}
