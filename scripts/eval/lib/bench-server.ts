/**
 * Starts the real server (`tsx src/server.ts`) as a child process for benchmarks: 127.0.0.1, an
 * OS-chosen port read back from the "listening" log line, a throw-away SQLite file and a random
 * API key. `stop()` sends SIGTERM and waits (bounded), then SIGKILLs that one child if needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchServer {
  baseUrl: string;
  apiKey: string;
  /** The server process's id (for RSS from /proc). */
  pid: number;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  modelsDir: string;
  /** Extra environment (e.g. MODELS_MANIFEST). */
  env?: Record<string, string>;
  startTimeoutMs?: number;
  /** The checkout whose `src/server.ts` runs (another version's, to compare); default the current directory. */
  cwd?: string;
  /** Run the server under scripts/server-allocator.sh, as `npm start` does (jemalloc where installed). */
  allocator?: boolean;
}

export async function startServer({ modelsDir, env = {}, startTimeoutMs = 60_000, cwd, allocator = false }: StartServerOptions): Promise<BenchServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-server-'));
  const apiKey = `bench_${randomBytes(16).toString('hex')}`;
  const server = [process.execPath, '--import', 'tsx', 'src/server.ts'];
  // The allocator script execs the server, so the child's pid is the server's.
  const [command, ...argv] = allocator ? ['sh', 'scripts/server-allocator.sh', ...server] : server;
  const child = spawn(command as string, argv, {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      MODELS_DIR: modelsDir,
      DATABASE_URL: `sqlite:${join(dataDir, 'bench.db')}`,
      API_KEYS: apiKey,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
  });
  const cleanup = async () => {
    await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await waitForListening(child, startTimeoutMs);
    return { baseUrl, apiKey, pid: child.pid as number, stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        // Keep draining the pipes (a full pipe would block the server's synchronous log writes).
        child.stdout!.off('data', onData).resume();
        child.stderr!.off('data', onData).resume();
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code} before listening:\n${output}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Nearest-rank percentile of unsorted values (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}
