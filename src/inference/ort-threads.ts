/**
 * How an onnxruntime session's compute threads wait, for every engine that chooses: spinning
 * threads answer the next parallel section sooner, but on a busy machine they take cores from
 * the threads doing the work (for Piper's trade-off see PiperOptions.spinning), so each engine
 * decides and the setting is spelled here once.
 */
interface ThreadChoice {
  /** Intra-op threads; onnxruntime's default (one per core) when absent. */
  threads?: number;
  /**
   * Idle intra-op threads spin-wait between parallel sections instead of sleeping: for as long as
   * onnxruntime's own default (true), or at most this many microseconds and then sleep.
   */
  spinning: boolean | number;
  /** Spinning threads stop when a run ends, so a session between requests holds no core. */
  stopSpinningAfterRun?: boolean;
}

/**
 * onnxruntime-node session options for that choice. One inter-op thread: sessions run their
 * graph sequentially (onnxruntime's default), which uses no inter-op pool, so it never spins.
 */
export function threadSessionOptions({ threads, spinning, stopSpinningAfterRun = false }: ThreadChoice) {
  return {
    ...(threads ? { intraOpNumThreads: threads } : {}),
    interOpNumThreads: 1,
    extra: {
      session: {
        'intra_op.allow_spinning': spinning ? '1' : '0',
        ...(typeof spinning === 'number' && spinning > 0 ? { 'intra_op.spin_duration_us': String(spinning) } : {}),
        'inter_op.allow_spinning': '0',
        ...(stopSpinningAfterRun ? { force_spinning_stop: '1' } : {}),
      },
    },
  };
}
