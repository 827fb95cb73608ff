/**
 * Real model: a request of long texts gives its memory back when it ends (issue 39: "memory a
 * request borrows is given back"). With onnxruntime's arena on, the encoder's sessions kept their
 * largest batch's buffers, +770–1060 MB after such a request (docs/benchmarks.md, "Memory"). The
 * measurement runs in a fresh child process (scripts/bench/encoder-arena.ts --child), so this
 * suite's own allocations do not blur it; the bounds are relative to the request's own peak.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { REAL_MODELS_DIR, realModel } from '../../helpers/real-models.js';

const JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';

describe('a request of long texts gives its memory back (sentence encoder, real MiniLM)', function () {
  this.timeout(180_000);

  it('RSS 3 s after 100 texts of 10,000 characters is back within a quarter of the request’s peak growth', async function () {
    const installed = realModel('minilm-embeddings').entry && existsSync(join(REAL_MODELS_DIR, 'all-MiniLM-L6-v2/.installed.json'));
    if (!installed || process.platform !== 'linux') this.skip(); // needs `npm run test-models`; reads /proc/self/status
    // jemalloc as `npm start` runs the server (docs/operations.md); else glibc tuned the same way.
    const env = existsSync(JEMALLOC)
      ? { LD_PRELOAD: JEMALLOC, MALLOC_CONF: 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0' }
      : { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '65536' };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts/bench/encoder-arena.ts'), '--child', 'off', '--rounds', '1'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env, MODELS_DIR: REAL_MODELS_DIR } },
    );
    const { rounds } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { rounds: Array<{ peak: number; after: number }> };
    const { peak, after } = rounds[0]!;
    // The request really took memory (batches of 32 texts of 256 tokens: +390–830 MB measured)…
    expect(peak, 'peak growth, MB').to.be.greaterThan(150);
    // …and gave it back: measured −280 to −26 MB held, against +770 to +1060 with the arena on.
    expect(after / peak, 'held 3 s after, of the peak growth').to.be.at.most(0.25);
  });
});
