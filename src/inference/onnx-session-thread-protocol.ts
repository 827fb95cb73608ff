/** What onnx-session-thread.ts and onnx-session-worker.ts exchange (structured-cloneable data only). */
import type { CallContext } from './worker/worker-api.js';

export interface OnnxSessionWorkerInit {
  onnxFile: string;
  /** onnxruntime-node session options (structured-cloneable). */
  sessionOptions: Record<string, unknown>;
  /** Linux nice value for the thread (0 = normal priority). */
  nice: number;
}

/** A tensor's type, data and shape, as they cross threads. */
export interface WireTensor {
  type: string;
  data: ArrayBufferView;
  dims: readonly number[];
}

interface RunRequest {
  feeds: Record<string, WireTensor>;
  fetches?: readonly string[];
}

export interface OnnxSessionApi {
  names(payload: undefined, context: CallContext): Promise<{ inputNames: string[]; outputNames: string[] }>;
  run(request: RunRequest, context: CallContext): Promise<Record<string, WireTensor>>;
}
