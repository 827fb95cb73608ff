import { expect } from 'chai';
import { IdleSweeper } from '../../../src/inference/lifecycle/idle-sweeper.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';

const entry = (id: string, idleTtl?: number): ManifestEntry => ({
  id,
  task: 'text-classification',
  engine: 'fake',
  description: '',
  license: '',
  ...(idleTtl === undefined ? {} : { idleTtl }),
});
const resident = (e: ManifestEntry, lastUsed: number, state: 'loading' | 'loaded' = 'loaded', busy = 0) => ({ entry: e, lastUsed, state, busy });

describe('idle sweeper', () => {
  it('picks loaded models without calls whose time-out has passed; an entry’s own time-out wins', () => {
    const sweeper = new IdleSweeper({ idleTtlSeconds: 10, entries: [], intervalMs: undefined, sweep: async () => {} });
    try {
      const now = 100_000;
      const old = resident(entry('old'), now - 10_000);
      const fresh = resident(entry('fresh'), now - 9_999);
      const busy = resident(entry('busy'), 0, 'loaded', 1);
      const loading = resident(entry('loading'), 0, 'loading');
      const kept = resident(entry('kept', -1), 0);
      const short = resident(entry('short', 1), now - 1_000);
      expect(sweeper.expired([old, fresh, busy, loading, kept, short], now)).to.deep.equal([old, short]);
    } finally {
      sweeper.stop();
    }
  });

  it('unloads nothing when no time-out is set', () => {
    const sweeper = new IdleSweeper({ idleTtlSeconds: -1, entries: [entry('a')], intervalMs: undefined, sweep: async () => {} });
    expect(sweeper.expired([resident(entry('a'), 0)], 1e12)).to.deep.equal([]);
    sweeper.stop();
  });
});
