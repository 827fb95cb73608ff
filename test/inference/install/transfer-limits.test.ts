import { expect } from 'chai';
import { InstallError } from '../../../src/inference/install/install-errors.js';
import { transferLimitsFromEnv } from '../../../src/inference/install/transfer-limits.js';

describe('transfer limits from the environment (DOWNLOAD_*)', () => {
  it('reads seconds as milliseconds and the rate as bytes per second; unset or empty leaves the default', () => {
    expect(transferLimitsFromEnv({})).to.deep.equal({});
    expect(
      transferLimitsFromEnv({
        DOWNLOAD_CONNECT_TIMEOUT: '5',
        DOWNLOAD_IDLE_TIMEOUT: '0.5',
        DOWNLOAD_MIN_RATE: '0',
        DOWNLOAD_RATE_WINDOW: '120',
        DOWNLOAD_API_TIMEOUT: '',
      }),
    ).to.deep.equal({ connectTimeoutMs: 5000, idleTimeoutMs: 500, minBytesPerSecond: 0, rateWindowMs: 120_000 });
  });

  it('refuses a value that is not a positive number (the rate may be 0: off)', () => {
    for (const [name, value] of [
      ['DOWNLOAD_IDLE_TIMEOUT', '0'],
      ['DOWNLOAD_RATE_WINDOW', '-1'],
      ['DOWNLOAD_API_TIMEOUT', '1e999'],
      ['DOWNLOAD_MIN_RATE', 'fast'],
    ] as const) {
      expect(() => transferLimitsFromEnv({ [name]: value }), name).to.throw(InstallError, new RegExp(`^${name} must be`));
    }
  });
});
