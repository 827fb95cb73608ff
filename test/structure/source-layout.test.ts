/**
 * The source stays a size a newcomer can read and change (docs/architecture.md, "Source layout"):
 * no file over 400 lines, no folder of speech to text over 15 files, no reach into another
 * library's underscore-prefixed fields, and no import cycle that runs at load time.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const MAX_LINES = 400;
const MAX_SPEECH_FOLDER_FILES = 15;
const SPEECH = 'src/inference/speech-to-text';

/**
 * Underscore-prefixed members that are a library's public interface: an Emscripten module exports
 * its C functions as `_name` (`_free` of the espeak-ng module).
 */
const PUBLIC_UNDERSCORE = new Set(['_free', '_malloc']);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** The text without comments and string contents, so that prose and messages are not read as code. */
function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

/** The files `file` imports at load time: relative imports and re-exports, not `import type` nor a named list of types only. */
function loadTimeImports(file: string, text: string): string[] {
  const imports: string[] = [];
  const statement = /^(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'(\.[^']+)';|^import\s+'(\.[^']+)';/gm;
  for (const match of text.matchAll(statement)) {
    const [, , typeOnly, clause = '', from, bare] = match;
    const specifier = from ?? bare!;
    if (typeOnly) continue;
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    if (named && named[1]!.split(',').every((name) => name.trim() === '' || name.trim().startsWith('type '))) continue;
    imports.push(relative(REPO_ROOT, resolve(dirname(join(REPO_ROOT, file)), specifier.replace(/\.js$/, '.ts'))));
  }
  return imports;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('source layout', () => {
  const files = sourceFiles('src');
  const texts = new Map(files.map((file) => [file, readFileSync(join(REPO_ROOT, file), 'utf8')]));

  it('finds the source it checks', () => {
    expect(files.length).to.be.above(200);
    expect(files).to.include(`${SPEECH}/decoder/whisper-window-decoder.ts`);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = files.flatMap((file) => {
      const lines = texts.get(file)!.split('\n').length - 1;
      return lines > MAX_LINES ? [`${file}: ${lines} lines`] : [];
    });
    expect(long).to.deep.equal([]);
  });

  it(`has no folder of speech to text over ${MAX_SPEECH_FOLDER_FILES} files`, () => {
    const perFolder = new Map<string, number>();
    for (const file of sourceFiles(SPEECH)) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
    expect([...perFolder].filter(([, count]) => count > MAX_SPEECH_FOLDER_FILES)).to.deep.equal([]);
    expect(perFolder.size).to.be.above(1);
  });

  it("reads no library's underscore-prefixed fields (a grep: `x._name`, `x?._name`)", () => {
    const reaches = files.flatMap((file) =>
      codeOnly(texts.get(file)!)
        .split('\n')
        .flatMap((line, at) => {
          const names = [...line.matchAll(/\.\s*(_[A-Za-z]\w*)/g)].map((match) => match[1]!).filter((name) => !PUBLIC_UNDERSCORE.has(name));
          return names.length > 0 ? [`${file}:${at + 1}: ${names.join(', ')}`] : [];
        }),
    );
    expect(reaches).to.deep.equal([]);
  });

  it('has no import cycle that runs at load time', () => {
    const graph = new Map(files.map((file) => [file, loadTimeImports(file, texts.get(file)!)]));
    expect([...graph.values()].flat().length).to.be.above(500);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).to.deep.equal([['a', 'b', 'c']]);
    expect(cycles(graph)).to.deep.equal([]);
  });
});
