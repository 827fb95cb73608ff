/**
 * npm run download-models -- --help. All logic lives in src/inference/install/ (tested there).
 */
import { runDownloadModels } from '../src/inference/install/download-models-command.js';

process.exitCode = await runDownloadModels(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
