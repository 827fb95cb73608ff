import type { Engine } from '../../src/inference/engine.js';

/**
 * A classifier whose answers wait until the test lets them go (`open`), so requests stay in
 * flight; `close` holds the next ones again, `running` counts those waiting.
 */
export function heldEngine(): {
  engine: Engine<'text-classification'>;
  state: { running: number; open: () => void; close: () => void };
} {
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const state = {
    running: 0,
    open: () => release(),
    close: () => {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
  };
  const engine: Engine<'text-classification'> = {
    tasks: ['text-classification'],
    isInstalled: async () => true,
    load: async () => ({
      async classify() {
        state.running++;
        await gate;
        state.running--;
        return [{ label: 'ok', confidence: 1 }];
      },
      dispose: async () => {},
    }),
  };
  return { engine, state };
}
