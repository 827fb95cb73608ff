/**
 * src/http sees inference only through the registry, the task interfaces and the task table:
 * encoders, language tables, workers and engines stay behind them (issue 9, "closed boundary").
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const HTTP_DIR = resolve('src/http');
const INFERENCE_DIR = resolve('src/inference');
/** tasks.ts is the task table (admission bounds, usage meters, tags): data that may import only types.ts. */
const ALLOWED = new Set(['model-registry.ts', 'types.ts', 'tasks.ts']);

/** Every module specifier of a file: static imports and re-exports (also type-only), and dynamic import(). */
function importedSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.push(match[1] as string);
  return specifiers;
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const path = join(dir, item.name);
    if (item.isDirectory()) return typeScriptFiles(path);
    return item.name.endsWith('.ts') ? [path] : [];
  });
}

describe('http → inference boundary', () => {
  it('finds imports of every form', () => {
    const source = [
      "import type { A } from '../inference/a.js';",
      "import {\n  B,\n  C,\n} from '../inference/b.js';",
      "export { D } from '../inference/d.js';",
      "import '../inference/side-effect.js';",
      "const e = await import('../inference/e.js');",
    ].join('\n');
    expect(importedSpecifiers(source)).to.have.members([
      '../inference/a.js',
      '../inference/b.js',
      '../inference/d.js',
      '../inference/side-effect.js',
      '../inference/e.js',
    ]);
  });

  it('src/http imports from src/inference only model-registry.ts, types.ts and tasks.ts', () => {
    const crossings: string[] = [];
    const files = typeScriptFiles(HTTP_DIR);
    expect(files.length).to.be.greaterThan(10);
    for (const file of files) {
      for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        const inside = relative(INFERENCE_DIR, target);
        if (inside.startsWith('..')) continue;
        if (!ALLOWED.has(inside)) crossings.push(`${relative(HTTP_DIR, file)} imports ${specifier}`);
      }
    }
    expect(crossings, 'imports across the boundary').to.deep.equal([]);
  });

  it('the task table reaches nothing else of src/inference, so allowing it opens no way around the boundary', () => {
    const specifiers = importedSpecifiers(readFileSync(join(INFERENCE_DIR, 'tasks.ts'), 'utf8'));
    const inside = specifiers
      .map((specifier) => relative(INFERENCE_DIR, resolve(INFERENCE_DIR, specifier)).replace(/\.js$/, '.ts'))
      .filter((path) => !path.startsWith('..'));
    expect(inside).to.deep.equal(['types.ts']);
  });
});
