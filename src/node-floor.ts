/**
 * The Node.js floor (package.json engines). Every entry point a user runs calls
 * exitBelowNodeFloor() and only then loads the rest with a dynamic import: an older Node fails while
 * *linking* the static imports (node:worker_threads has no isMarkedAsUntransferable before 22), which
 * happens before any module body runs, so a check that is merely imported first never gets to speak.
 * This file must itself stay loadable on old Nodes: no imports.
 */
export const NODE_FLOOR_MAJOR = 22;

/** The one line to print when `version` (process.version's form, `v20.20.2`) is below the floor; undefined when it is not. */
export function nodeFloorProblem(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (major >= NODE_FLOOR_MAJOR) return undefined;
  return `needs Node.js ${NODE_FLOOR_MAJOR} or newer (this is ${version})`;
}

export function exitBelowNodeFloor(): void {
  const problem = nodeFloorProblem(process.version);
  if (problem === undefined) return;
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
