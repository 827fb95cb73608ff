/**
 * How the documentation's examples are read for running: a shell block as a list of commands,
 * each with the output its `# {…}` comment promises, compared loosely; which blocks may not run
 * in a test; and which models a block names.
 */
import type { FencedBlock } from './markdown.js';

export const SHELL = new Set(['sh', 'bash', 'shell']);
export const JAVASCRIPT = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);
export const PYTHON = new Set(['python', 'py']);

export function isRunnable(block: FencedBlock): boolean {
  if (block.flags.includes('no-run')) return false;
  return SHELL.has(block.language) || JAVASCRIPT.has(block.language) || PYTHON.has(block.language);
}

export interface ShellCommand {
  /** The command's lines, continuation lines included, as written. */
  text: string;
  /** What its `# {…}` / `# […]` comment says it prints, if it says. */
  expected?: string;
}

/**
 * A shell block as commands: a command is a line that is not a comment, with the lines its
 * trailing backslashes continue. A comment line right after a command that starts with `{` or
 * `[` is the command's expected output (further lines starting `#  ` continue it); other
 * comments are prose.
 */
export function shellCommands(code: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const lines = code.split('\n');
  let last: ShellCommand | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '') {
      last = undefined;
      continue;
    }
    if (trimmed.startsWith('#')) {
      const comment = trimmed.replace(/^#\s?/, '');
      if (last && last.expected === undefined && /^[[{]/.test(comment)) {
        last.expected = comment;
        while (i + 1 < lines.length && /^\s*#\s{2,}\S/.test(lines[i + 1]!)) last.expected += `\n${lines[++i]!.trim().replace(/^#\s*/, '')}`;
      }
      continue;
    }
    const text = [line];
    while (/\\\s*$/.test(text[text.length - 1]!) && i + 1 < lines.length) text.push(lines[++i]!);
    last = { text: text.join('\n') };
    commands.push(last);
  }
  return commands;
}

/**
 * Whether `actual` is what `expected` promises, loosely: `…` stands for anything (also the rest
 * of a number's digits), whitespace runs for any whitespace, and a decimal number matches a
 * number within half a unit of its last digit shown (at least 5e-4, so unrounded scores may vary
 * in the last digits between machines). Returns why not, or undefined.
 */
export function looseMismatch(expected: string, actual: string): string | undefined {
  const numbers: Array<{ value: number; decimals: number }> = [];
  let pattern = '';
  for (const token of expected.trim().match(/…|-?\d+\.\d+|\s+|[^…\s\d-]+|[\d-]/g) ?? []) {
    if (token === '…') pattern += '[\\s\\S]*?';
    else if (/^\s+$/.test(token)) pattern += '\\s*';
    else if (/^-?\d+\.\d+$/.test(token)) {
      numbers.push({ value: Number(token), decimals: token.split('.')[1]!.length });
      pattern += '(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)';
    } else pattern += token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  const match = new RegExp(`^\\s*${pattern}\\s*$`, 'u').exec(actual);
  if (!match) return `expected (loosely) ${expected.trim()}\n     but got ${actual.trim().slice(0, 2000)}`;
  for (const [index, { value, decimals }] of numbers.entries()) {
    const got = Number(match[index + 1]);
    const tolerance = Math.max(0.5 * 10 ** -decimals, 5e-4);
    if (!(Math.abs(got - value) <= tolerance + 1e-12)) return `expected a number near ${value}, got ${got}, in ${actual.trim().slice(0, 2000)}`;
  }
  return undefined;
}

/** Commands an example must not run inside a test: installs, builds of everything, servers that never end. */
const NOT_IN_A_TEST: ReadonlyArray<[RegExp, string]> = [
  [/\bnpm (ci|install|i|start|test)\b/, 'installs or starts a server'],
  [/\bnpm run (test-models|dev|cluster|fuzz|bench[:\w-]*|eval[:\w-]*|conformance|test:[\w-]+|fixtures)\b/, 'installs models or runs for minutes'],
  [/\bnpm run download-models\b(?!\s+--\s+--list)/, 'downloads from the model hub'],
  [/\bapt-get\b/, 'installs system packages'],
];

/** Why a block may not run in a test though its fence does not say `no-run`, or undefined. */
export function forbiddenCommand(block: FencedBlock): string | undefined {
  if (!SHELL.has(block.language)) return undefined;
  const commands = shellCommands(block.code)
    .map((command) => command.text)
    .join('\n');
  for (const [pattern, why] of NOT_IN_A_TEST) {
    const found = pattern.exec(commands);
    if (found) return `"${found[0]}" ${why}: mark the fence \`${block.language} no-run\``;
  }
  return undefined;
}

/** The models a fence flag such as `optional=a,b` or `absent=a` lists. */
export function flagModels(block: FencedBlock, flag: 'optional' | 'absent'): string[] {
  return block.flags.filter((word) => word.startsWith(`${flag}=`)).flatMap((word) => word.slice(flag.length + 1).split(','));
}

/**
 * The model ids and aliases of `names` that a block mentions and needs: minus those its fence
 * marks `optional=` (named, not needed) or `absent=` (named to show the answer without them).
 */
export function modelsNamed(block: FencedBlock, names: Iterable<string>): string[] {
  const optional = new Set([...flagModels(block, 'optional'), ...flagModels(block, 'absent')]);
  const named: string[] = [];
  for (const name of names) {
    if (optional.has(name)) continue;
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(?<![\\w.-])${escaped}(?![\\w-]|\\.\\w)`).test(block.code)) named.push(name);
  }
  return named;
}

/** The Python modules a block imports (top-level names). */
export function pythonImports(code: string): string[] {
  const modules = new Set<string>();
  for (const match of code.matchAll(/^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))/gm)) {
    modules.add((match[1] ?? match[2])!.split('.')[0]!);
  }
  return [...modules];
}

/** The text with the server's documented address (port 3000) pointing at the port under test. */
export function atPort(text: string, port: number): string {
  return text.replace(/\b(localhost|127\.0\.0\.1):3000\b/g, `$1:${port}`);
}
