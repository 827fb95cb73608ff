import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { HaproxyConfigError, renderHaproxyConfig } from '../../../scripts/cluster/haproxy-config.js';

const TEMPLATE = readFileSync('deploy/haproxy.cfg', 'utf8');
const TARGETS = {
  front: '127.0.0.1:18080',
  stats: '127.0.0.1:18404',
  servers: [
    { name: 'replica1', address: '127.0.0.1:4001' },
    { name: 'replica2', address: '127.0.0.1:4002' },
  ],
};
const haproxyInstalled = spawnSync('haproxy', ['-v']).status === 0;

describe('deploy/haproxy.cfg rendered for loopback replicas', () => {
  it('replaces the bind addresses and the server lines, keeping their options and every other line', () => {
    const rendered = renderHaproxyConfig(TEMPLATE, TARGETS);
    const serverLines = rendered.split('\n').filter((line) => /^\s+server\s/.test(line));
    expect(serverLines.map((line) => line.trim())).to.deep.equal(['server replica1 127.0.0.1:4001', 'server replica2 127.0.0.1:4002']);
    expect(rendered).to.match(/^\s+bind 127\.0\.0\.1:18080$/m);
    expect(rendered).to.match(/^\s+bind 127\.0\.0\.1:18404$/m);
    const untouched = (config: string) => config.split('\n').filter((line) => !/^\s+(server|bind)\s/.test(line));
    expect(untouched(rendered)).to.deep.equal(untouched(TEMPLATE));
  });

  it('health-checks /readyz and retries after a sent request only for safe methods', () => {
    expect(TEMPLATE).to.match(/^\s+http-check send meth GET uri \/readyz\b/m);
    expect(TEMPLATE).to.match(/^\s+retry-on conn-failure empty-response$/m);
    expect(TEMPLATE).to.match(/^\s+http-request disable-l7-retry unless METH_GET \|\| METH_HEAD \|\| METH_OPTIONS$/m);
  });

  it('refuses a template whose backend has no server line', () => {
    const broken = TEMPLATE.split('\n')
      .filter((line) => !/^\s+server\s/.test(line))
      .join('\n');
    expect(() => renderHaproxyConfig(broken, TARGETS)).to.throw(HaproxyConfigError, /server/);
  });

  describe('checked by haproxy -c', () => {
    before(function () {
      if (!haproxyInstalled) this.skip(); // apt-get install haproxy (.ci/run does)
    });

    for (const [name, config] of [
      ['as shipped', TEMPLATE],
      ['as rendered', renderHaproxyConfig(TEMPLATE, TARGETS)],
    ] as const) {
      it(`is valid ${name}`, () => {
        const dir = mkdtempSync(join(tmpdir(), 'lis-haproxy-'));
        try {
          writeFileSync(join(dir, 'haproxy.cfg'), config);
          const check = spawnSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
          expect(check.status, check.stdout + check.stderr).to.equal(0);
          expect(check.stdout + check.stderr).not.to.match(/\[WARNING\]/);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
});
