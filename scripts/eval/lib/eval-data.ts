/**
 * Where the benches and evaluations find their data sets. The sets are not in the repository
 * (several licences forbid redistributing them, and they are larger than the tests need): point
 * EVAL_DIR at a folder holding `speech/`, `tts/`, `classification/` and `translation/` (each with
 * its SOURCES.md), or EVAL_SPEECH_DIR / EVAL_TTS_DIR at one set. Without them, or when the folder
 * is not there, the script stops with one `error:` line naming the variable (docs/benchmarks.md).
 * The tests never come here: they use the clips in test/fixtures/speech.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type EvalSet = 'speech' | 'tts' | 'classification' | 'translation';

/** The variable that names one set's folder directly, where there is one. */
const OWN_VARIABLE: Partial<Record<EvalSet, string>> = { speech: 'EVAL_SPEECH_DIR', tts: 'EVAL_TTS_DIR' };

/** The folder of one evaluation set, or exit 2 with one line saying which variable to set. */
export function evalSetDir(set: EvalSet, env: NodeJS.ProcessEnv = process.env): string {
  const own = OWN_VARIABLE[set];
  const [variable, dir] = own && env[own] ? [own, resolve(env[own]!)] : env.EVAL_DIR ? ['EVAL_DIR', resolve(env.EVAL_DIR, set)] : [undefined, undefined];
  if (!variable || !dir) {
    const names = own ? `EVAL_DIR (a folder with ${set}/ in it) or ${own}` : `EVAL_DIR (a folder with ${set}/ in it)`;
    return fail(`error: the ${set} evaluation set is not in the repository; set ${names}, e.g. EVAL_DIR=../shared/eval (docs/benchmarks.md)`);
  }
  if (!existsSync(dir)) return fail(`error: ${variable}=${env[variable]}: no folder ${dir}`);
  return dir;
}

/** One file of a set, e.g. `evalSetFile('classification', 'sst2_validation_300.tsv')`. */
export function evalSetFile(set: EvalSet, file: string): string {
  return join(evalSetDir(set), file);
}

function fail(line: string): never {
  console.error(line);
  process.exit(2);
}
