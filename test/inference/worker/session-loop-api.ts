/** The Api of session-loop-worker.ts. */
import { workerModule } from '../../../src/inference/worker/worker-api.js';

export interface SessionLoopInit {
  onnxFile: string;
}

export interface SessionLoopApi {
  /** Starts creating sessions in a loop; resolves once a few were made. */
  loop(): Promise<number>;
  /** A run onnxruntime refuses. */
  failRun(): Promise<string>;
}

export const SESSION_LOOP_WORKER = workerModule<SessionLoopApi, SessionLoopInit>(import.meta.url, './session-loop-worker');
