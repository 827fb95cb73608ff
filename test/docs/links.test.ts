/**
 * Every relative link of the documentation resolves in a clone: to a file or folder inside the
 * repository, and a `#anchor` to a heading of the file it names (as GitHub makes anchors).
 */
import { expect } from 'chai';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { anchorsOf, documentationFiles, linksOf, readDoc } from './markdown.js';

/** Problems with one file's links, one line each. */
function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  for (const { target, line } of linksOf(readDoc(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const where = `${file}:${line} → ${target}`;
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? join(REPO_ROOT, file) : resolve(REPO_ROOT, dirname(file), decodeURIComponent(path));
    const inside = relative(REPO_ROOT, resolved);
    if (inside.startsWith('..') || resolve(REPO_ROOT, inside) !== resolved) {
      problems.push(`${where}: points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined) {
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
        problems.push(`${where}: an anchor on a file that is not Markdown`);
      } else if (!anchorsOf(readDoc(inside)).has(anchor)) {
        problems.push(`${where}: no heading with that anchor in ${inside}`);
      }
    }
  }
  return problems;
}

describe('documentation links', () => {
  it('finds the README and the docs folder', () => {
    expect(documentationFiles()).to.include.members(['README.md', 'docs/api.md']);
  });

  for (const file of documentationFiles()) {
    it(`every relative link and anchor of ${file} resolves`, () => {
      expect(brokenLinks(file)).to.deep.equal([]);
    });
  }
});

describe('documentation links: the checker itself', () => {
  it('makes GitHub anchors from headings, numbering repeats', () => {
    const anchors = anchorsOf(
      "# A\n## OpenAI's `transcription` API\n## Browsers (CORS)\n## Speech-to-text engine\n## Notes\n## Notes\n```sh\n# not a heading\n```\n",
    );
    expect([...anchors]).to.deep.equal(['a', 'openais-transcription-api', 'browsers-cors', 'speech-to-text-engine', 'notes', 'notes-1']);
  });

  it('reads links outside code only', () => {
    const links = linksOf('See [a](docs/a.md#x) and ![b](b.png).\n`[not](a link)`\n```\n[nor](this)\n```\n[c](https://example.org)\n');
    expect(links.map((link) => link.target)).to.deep.equal(['docs/a.md#x', 'b.png', 'https://example.org']);
  });
});
