import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr so far (JSON log lines). */
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Starts the real server (`src/server.ts`) in its own process on a free port. `node --import tsx`
 * rather than the `tsx` CLI, so the child pid is the server itself and `kill -9` reaches it.
 */
export async function spawnServer(env: Record<string, string>, options: { listenTimeoutMs?: number } = {}): Promise<SpawnedServer> {
  const listenTimeoutMs = options.listenTimeoutMs ?? 20_000;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  let listening = false;
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"message":"listening","url":"([^"]+)"/.exec(stderr);
      if (match?.[1] && !listening) {
        listening = true;
        clearTimeout(giveUp);
        resolve(match[1]);
      }
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`)));
    // The "listening" line is logged at info level; without it (or on a hang) fail, don't wait forever.
    // Only until it listens: a server that lives longer than this must not be killed by it.
    const giveUp = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not log "listening" within ${listenTimeoutMs / 1000} s:\n${stderr}`));
    }, listenTimeoutMs);
    giveUp.unref();
  });
  return { child, url, stderr: () => stderr, exited };
}

/** Runs the server to completion (for start-up failures) and returns its exit code and stderr. */
export async function runServerToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stderr };
}
