import { expect } from 'chai';
import { KeyAccess, requesterOf } from '../../src/auth/key-access.js';
import type { KeyPolicy, KeyStore } from '../../src/auth/key-store.js';
import { currentRequester } from '../../src/requester.js';
import { createLogger } from '../../src/logger.js';

const STATIC: KeyPolicy = { id: null, rpm: null, models: null, admin: true };

describe('the requester a key shares models as', () => {
  it('names a stored key by its id and each static key by its digest, never by the key itself', () => {
    expect(requesterOf({ ...STATIC, id: 7, admin: false }, 'lis_whatever')).to.equal('key 7');
    const first = requesterOf(STATIC, 'static-key-one-0123456789');
    const second = requesterOf(STATIC, 'static-key-two-0123456789');
    expect(first).to.match(/^static [0-9a-f]{16}$/);
    expect(second).to.not.equal(first);
    expect(first).to.not.include('static-key-one');
  });

  it('is current while KeyAccess.run runs the rest of the request, and only then', async () => {
    const access = new KeyAccess({} as KeyStore, { logger: createLogger('silent') });
    try {
      const seen = await access.run({ ...STATIC, id: 3 }, 'lis_key', async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return currentRequester();
      });
      expect(seen).to.equal('key 3');
      expect(currentRequester()).to.equal(undefined);
    } finally {
      await access.close();
    }
  });
});
