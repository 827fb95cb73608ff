/**
 * On a Node below the floor, every entry point a user runs prints one line and exits 1. An old Node
 * fails while linking static imports, before any module body runs, so an entry may statically
 * import node-floor.ts alone and must call the check before its first dynamic import.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLOOR_MAJOR, nodeFloorProblem } from '../../src/node-floor.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const ENTRY_POINTS = ['src/server.ts', 'scripts/keys.ts', 'scripts/download-models.ts'];

describe('Node floor (src/node-floor.ts)', () => {
  it('names the floor and the running version in one line below it, nothing at or above it', () => {
    expect(nodeFloorProblem('v20.20.2')).to.equal('needs Node.js 22 or newer (this is v20.20.2)');
    expect(nodeFloorProblem('v18.0.0')).to.include('this is v18.0.0');
    expect(nodeFloorProblem(`v${NODE_FLOOR_MAJOR}.0.0`)).to.equal(undefined);
    expect(nodeFloorProblem('v24.1.0')).to.equal(undefined);
    expect(nodeFloorProblem(process.version)).to.equal(undefined);
  });

  it('is itself loadable on any Node: it imports nothing', () => {
    const text = readFileSync(join(REPO_ROOT, 'src/node-floor.ts'), 'utf8');
    expect(text).not.to.match(/^\s*import\s/m);
  });

  for (const entry of ENTRY_POINTS) {
    it(`${entry} checks the floor before it loads anything else`, () => {
      const text = readFileSync(join(REPO_ROOT, entry), 'utf8');
      const staticImports = [...text.matchAll(/^import\s[^;]*?from\s+'([^']+)';|^import\s+'([^']+)';/gm)].map((match) => match[1] ?? match[2]);
      expect(staticImports.map((specifier) => specifier?.replace(/^.*\//, ''))).to.deep.equal(['node-floor.js']);
      const check = text.indexOf('exitBelowNodeFloor();');
      expect(check, 'calls exitBelowNodeFloor()').to.be.greaterThan(-1);
      expect(check).to.be.lessThan(text.indexOf('await import('));
    });
  }
});
