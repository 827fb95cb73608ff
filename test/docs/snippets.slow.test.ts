/**
 * The documentation's examples run as written. For each of README.md and docs/*.md with runnable
 * fenced blocks: a freshly started server (its own temporary SQLite database, the installed models
 * of models/, a static admin key in API_KEY), a scratch folder that holds the clone's package.json,
 * node_modules, dist, samples, models and sources (so `npm run keys`, `samples/jfk.mp3` and
 * `import … from 'local-inference-server/client'` work as in the clone, and files the examples
 * write land there), and one bash session for the file's shell blocks, as a reader's terminal.
 * Blocks run in document order; `http://127.0.0.1:3000` in their text points at the test server,
 * and `whisper-1` at whisper-tiny.en when installed (the examples that use it compare no output).
 *
 * A shell command's `# {…}` comment is its expected output, compared loosely (snippets.ts); any
 * failing shell command fails its block (an ERR trap reports it); JavaScript/TypeScript blocks
 * run under tsx and Python blocks under the tools venv (`.cache/venv`, or SNIPPETS_PYTHON) and
 * must exit 0. Skipped, with the reason printed: blocks naming a model that is not installed
 * (fence flag `optional=<id>` for a model named on purpose, e.g. to show its 503), and Python
 * blocks whose packages no Python at hand has; `absent=<id>` marks a block that shows the answer
 * when that model is not installed (skipped where it is). Fences marked `no-run` are not run; a block that
 * would install or start something without that mark fails (snippets.test.ts).
 */
import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { spawnServer, type SpawnedServer } from '../server/spawn-server.js';
import { documentationFiles, fencedBlocks, readDoc, type FencedBlock } from './markdown.js';
import {
  atPort,
  flagModels,
  forbiddenCommand,
  isRunnable,
  JAVASCRIPT,
  looseMismatch,
  modelsNamed,
  PYTHON,
  pythonImports,
  SHELL,
  shellCommands,
} from './snippets.js';

const STATIC_KEY = 'snippets-static-admin-key-0123456789';
const BLOCK_TIMEOUT_MS = 120_000;
/** What a scratch folder links from the clone. */
const CLONE_ENTRIES = [
  'package.json',
  'package-lock.json',
  '.npmrc',
  'node_modules',
  'dist',
  'samples',
  'models',
  'scripts',
  'src',
  'tsconfig.json',
  'tsconfig.client.json',
  'tsconfig.playground.json',
];

/** One bash process fed block after block; each block's output is read up to its end marker. */
class ShellSession {
  readonly #child: ChildProcessWithoutNullStreams;
  #stdout = '';
  #stderr = '';
  #blocks = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: 'pipe' });
    this.#child.stdout.on('data', (chunk: Buffer) => (this.#stdout += chunk.toString()));
    this.#child.stderr.on('data', (chunk: Buffer) => (this.#stderr += chunk.toString()));
    this.#child.stdin.write(`trap 'printf "@@ERR %s %s@@\\n" "$?" "$BASH_COMMAND" >&2' ERR\n`);
  }

  /** Runs the commands; returns each command's stdout, the failed commands and all stderr. */
  async run(commands: string[]): Promise<{ outputs: string[]; failures: string[]; stderr: string }> {
    const id = ++this.#blocks;
    const end = `@@END ${id}@@`;
    let script = '';
    commands.forEach((command, index) => (script += `printf '\\n@@CMD ${id}.${index}@@\\n'\n${command}\n`));
    script += `printf '\\n${end}\\n'; printf '\\n${end}\\n' >&2\n`;
    const [outStart, errStart] = [this.#stdout.length, this.#stderr.length];
    this.#child.stdin.write(script);
    const deadline = Date.now() + BLOCK_TIMEOUT_MS;
    while (!(this.#stdout.includes(end, outStart) && this.#stderr.includes(end, errStart))) {
      if (this.#child.exitCode !== null) throw new Error(`the shell exited (${this.#child.exitCode}):\n${this.#stderr.slice(errStart)}`);
      if (Date.now() > deadline)
        throw new Error(`no end after ${BLOCK_TIMEOUT_MS / 1000} s; output so far:\n${this.#stdout.slice(outStart)}\n${this.#stderr.slice(errStart)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stdout = this.#stdout.slice(outStart, this.#stdout.indexOf(end, outStart));
    const stderr = this.#stderr.slice(errStart, this.#stderr.indexOf(end, errStart));
    const outputs = commands.map((_, index) => {
      const marker = `@@CMD ${id}.${index}@@\n`;
      const from = stdout.indexOf(marker);
      const to = index + 1 < commands.length ? stdout.indexOf(`\n@@CMD ${id}.${index + 1}@@`, from) : stdout.length;
      return from < 0 ? '' : stdout.slice(from + marker.length, to < 0 ? undefined : to);
    });
    const failures = [...stderr.matchAll(/@@ERR (\d+) ([\s\S]*?)@@/g)].map((match) => `exit ${match[1]}: ${match[2]}`);
    return { outputs, failures, stderr };
  }

  close(): void {
    this.#child.stdin.end();
    this.#child.kill('SIGTERM');
  }
}

/** Runs a program to its end; resolves with its exit code and output. */
async function runProgram(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

/** The Python to run examples with, and which of `modules` it lacks. */
async function pythonFor(modules: string[]): Promise<{ python?: string; missing: string[] }> {
  const python = process.env.SNIPPETS_PYTHON ?? join(REPO_ROOT, '.cache/venv/bin/python');
  if (!existsSync(python)) return { missing: modules };
  const missing: string[] = [];
  for (const module of modules) {
    const { code } = await runProgram(python, ['-c', `import ${module}`], REPO_ROOT, process.env);
    if (code !== 0) missing.push(module);
  }
  return { python, missing };
}

interface FileRun {
  server: SpawnedServer;
  port: number;
  scratch: string;
  shell: ShellSession;
  env: NodeJS.ProcessEnv;
  /** Model ids and aliases the server reports installed. */
  installed: Set<string>;
  /** Every model id and alias of the manifest. */
  known: string[];
}

async function startFileRun(): Promise<FileRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'lis-snippets-'));
  for (const entry of CLONE_ENTRIES) if (existsSync(join(REPO_ROOT, entry))) symlinkSync(join(REPO_ROOT, entry), join(scratch, entry));
  const databaseUrl = `sqlite:${join(scratch, 'app.db')}`;
  // whisper-1 stands for the smallest Whisper when it is installed, rather than the best (a load
  // of whisper-base-pypi per file): the examples that send it compare no output.
  const pin: Record<string, string> = existsSync(join(REPO_ROOT, 'models/whisper-tiny.en/.installed.json'))
    ? { MODEL_ALIASES: 'whisper-1=whisper-tiny.en' }
    : {};
  const server = await spawnServer({ DATABASE_URL: databaseUrl, API_KEYS: STATIC_KEY, MODELS_DIR: join(REPO_ROOT, 'models'), ...pin });
  const port = Number(new URL(server.url).port);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? scratch,
    LANG: 'C.UTF-8',
    API_KEY: STATIC_KEY,
    DATABASE_URL: databaseUrl,
    MODELS_DIR: join(REPO_ROOT, 'models'),
  };
  const models = (await (await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${STATIC_KEY}` } })).json()) as {
    data: Array<{ id: string; installed: boolean }>;
  };
  return {
    server,
    port,
    scratch,
    shell: new ShellSession(scratch, env),
    env,
    installed: new Set(models.data.filter((model) => model.installed).map((model) => model.id)),
    known: models.data.map((model) => model.id),
  };
}

async function stopFileRun(run: FileRun | undefined): Promise<void> {
  if (!run) return;
  run.shell.close();
  run.server.child.kill('SIGTERM');
  await run.server.exited;
  rmSync(run.scratch, { recursive: true, force: true });
}

/** Runs one block; throws on a failure, returns a reason to skip, or undefined when it passed. */
async function runBlock(block: FencedBlock, run: FileRun, index: number): Promise<string | undefined> {
  const forbidden = forbiddenCommand(block);
  if (forbidden) throw new Error(forbidden);
  const missingModels = modelsNamed(block, run.known).filter((name) => !run.installed.has(name));
  if (missingModels.length > 0) return `needs ${missingModels.join(', ')}, which is not installed (the test models do not include it)`;
  const present = flagModels(block, 'absent').filter((name) => run.installed.has(name));
  if (present.length > 0) return `shows the answer without ${present.join(', ')}, which is installed here`;

  if (SHELL.has(block.language)) {
    const commands = shellCommands(atPort(block.code, run.port));
    const { outputs, failures, stderr } = await run.shell.run(commands.map((command) => command.text));
    expect(failures, `failed commands; stderr:\n${stderr}`).to.deep.equal([]);
    commands.forEach((command, at) => {
      if (command.expected === undefined) return;
      const problem = looseMismatch(command.expected, outputs[at] ?? '');
      expect(problem, `${command.text}\n     ${problem}`).to.equal(undefined);
    });
    return undefined;
  }

  if (JAVASCRIPT.has(block.language)) {
    const file = join(run.scratch, `example-${index}.${block.language.startsWith('t') ? 'ts' : 'mjs'}`);
    writeFileSync(file, atPort(block.code, run.port));
    const { code, output } = await runProgram(process.execPath, ['--import', 'tsx', file], run.scratch, run.env);
    expect(code, output).to.equal(0);
    return undefined;
  }

  if (PYTHON.has(block.language)) {
    const modules = pythonImports(block.code).filter((module) => !['os', 'sys', 'json', 'pathlib'].includes(module));
    const { python, missing } = await pythonFor(modules);
    if (!python || missing.length > 0) {
      return `needs the Python packages ${missing.join(', ')} (npm run conformance installs them into .cache/venv; or set SNIPPETS_PYTHON)`;
    }
    const file = join(run.scratch, `example-${index}.py`);
    writeFileSync(file, atPort(block.code, run.port));
    const { code, output } = await runProgram(python, [file], run.scratch, run.env);
    expect(code, output).to.equal(0);
    return undefined;
  }
  throw new Error(`no runner for ${block.language}`);
}

describe('documentation examples run as written', function () {
  this.timeout(BLOCK_TIMEOUT_MS + 30_000);

  for (const file of documentationFiles()) {
    const blocks = fencedBlocks(readDoc(file)).filter(isRunnable);
    if (blocks.length === 0) continue;

    describe(file, () => {
      let run: FileRun | undefined;
      before(async () => {
        run = await startFileRun();
      });
      after(() => stopFileRun(run));

      blocks.forEach((block, index) => {
        it(`${file}:${block.line} (${block.language}${block.flags.length > 0 ? ` ${block.flags.join(' ')}` : ''})`, async function () {
          let skip: string | undefined;
          try {
            skip = await runBlock(block, run!, index);
          } catch (error) {
            const server = run!.server;
            if (server.child.exitCode !== null || server.child.signalCode !== null) {
              (error as Error).message +=
                `\n     The server exited (${server.child.exitCode ?? server.child.signalCode}); its last log lines:\n${server.stderr().split('\n').slice(-15).join('\n')}`;
            }
            throw error;
          }
          if (skip !== undefined) {
            console.log(`      skipped ${file}:${block.line}: ${skip}`);
            this.skip();
          }
        });
      });
    });
  }
});
