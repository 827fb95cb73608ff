/**
 * Run as its own process by native-calls.test.ts (an abort would take mocha down with it):
 * terminates a worker while it is creating onnxruntime sessions, several times, and prints
 * "alive" if the process survived.
 */
import { WorkerClient } from '../../../src/inference/worker/worker-client.js';
import { SESSION_LOOP_WORKER } from './session-loop-api.js';

const onnxFile = process.argv[2]!;
for (let round = 0; round < 3; round++) {
  const client = await WorkerClient.spawn(SESSION_LOOP_WORKER, { init: { onnxFile }, name: 'session-loop' });
  await client.call('loop');
  await client.terminate();
}
console.log('alive');
