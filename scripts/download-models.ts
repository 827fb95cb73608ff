/**
 * npm run download-models -- --help. All logic lives in src/inference/install/ (tested there).
 */
import { exitBelowNodeFloor } from '../src/node-floor.js';

// Before anything else loads: an old Node would fail linking the imports below (src/node-floor.ts).
exitBelowNodeFloor();
const { runDownloadModels } = await import('../src/inference/install/download-models-command.js');
const { oneLine } = await import('../src/inference/install/terminal-text.js');

// runDownloadModels reports its own failures; an error escaping it (a stream failing after its
// pipeline ended) is still one line, not a stack trace.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    process.stderr.write(`error: ${oneLine(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  });
}

process.exitCode = await runDownloadModels(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
