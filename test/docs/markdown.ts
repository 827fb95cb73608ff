/**
 * Reading the project's Markdown as GitHub renders it: the documentation files, their fenced
 * blocks, their links and the anchors their headings get. Shared by the links and snippets tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

/** README.md, samples/README.md and docs/*.md, as paths relative to the repository root. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'samples/README.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(join(REPO_ROOT, file), 'utf8');
}

export interface FencedBlock {
  /** The first word of the info string: `sh`, `js`, `python`, … (empty for a bare fence). */
  language: string;
  /** The words after it, e.g. `no-run` or `optional=whisper-base`. */
  flags: string[];
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

const FENCE = /^(```+|~~~+)\s*([^`]*)$/;

/** The fenced code blocks of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!.trimStart());
    if (!open) continue;
    const [, fence = '```', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) body.push(lines[j++]!);
    const indent = /^\s*/.exec(lines[i]!)![0].length;
    const [language = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ language, flags, code: body.map((line) => line.slice(Math.min(indent, /^\s*/.exec(line)![0].length))).join('\n'), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The Markdown with fenced blocks and inline code blanked (links inside them are not links). */
function proseOf(markdown: string): string {
  return proseWithInlineCode(markdown)
    .split('\n')
    .map((line) => line.replace(/`+[^`]*`+/g, ''))
    .join('\n');
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images, `[text](target)` and `![alt](target)`, outside code. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseOf(markdown)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        links.push({ target: match[1]!, line: index + 1 });
      }
    });
  return links;
}

/**
 * The anchors GitHub gives a file's headings: lower case, markup and punctuation removed (letters,
 * digits, spaces, `-` and `_` kept), spaces to `-`; a repeated heading gets `-1`, `-2`, ….
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseWithInlineCode(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The Markdown with fenced blocks blanked; inline code stays (headings may hold it, and it is part of the anchor). */
function proseWithInlineCode(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const open = FENCE.exec(line.trimStart());
      if (fence) {
        if (line.trimStart().startsWith(fence)) fence = undefined;
        return '';
      }
      if (open) {
        fence = open[1];
        return '';
      }
      return line;
    })
    .join('\n');
}

export function repoRelative(path: string): string {
  return relative(REPO_ROOT, path);
}
