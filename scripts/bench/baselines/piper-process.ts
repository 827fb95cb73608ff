/**
 * Drives scripts/bench/baselines/piper_bench.py over its line protocol, so the TTS bench can
 * time Piper and the product on the same sentence back to back.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The piper_bench.py line protocol: one sentence in, its timing out. */
export class PiperProcess {
  readonly #child: ReturnType<typeof spawn>;
  readonly #lines: AsyncIterator<string>;
  private constructor(
    child: ReturnType<typeof spawn>,
    lines: AsyncIterator<string>,
    readonly loadSeconds: number,
    readonly sampleRate: number,
  ) {
    this.#child = child;
    this.#lines = lines;
  }

  static async start(python: string, onnx: string): Promise<PiperProcess> {
    const child = spawn(python, [resolve('scripts/bench/baselines/piper_bench.py'), '--model', onnx], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) throw new Error('piper_bench.py exited before loading the voice');
    const { load_seconds, sample_rate } = JSON.parse(first.value) as { load_seconds: number; sample_rate: number };
    return new PiperProcess(child, lines, load_seconds, sample_rate);
  }

  async speak(text: string): Promise<{ seconds: number; samples: number }> {
    this.#child.stdin!.write(`${text.replace(/\s+/g, ' ')}\n`);
    const line = await this.#lines.next();
    if (line.done) throw new Error('piper_bench.py exited');
    return JSON.parse(line.value) as { seconds: number; samples: number };
  }

  stop(): void {
    this.#child.stdin!.end();
  }
}
