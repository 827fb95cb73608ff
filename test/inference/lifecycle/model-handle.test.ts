import { expect } from 'chai';
import { modelHandle, type HandleTarget } from '../../../src/inference/lifecycle/model-handle.js';

interface Voice {
  readonly sampleRate: number;
  speak(text: string): AsyncIterable<string>;
  classify(text: string): Promise<string>;
  dispose(): Promise<void>;
}

function voice(): Voice {
  return {
    sampleRate: 22_050,
    async *speak(text: string) {
      for (const word of text.split(' ')) yield word;
    },
    classify: async (text: string) => text.toUpperCase(),
    dispose: async () => {},
  };
}

/** A target whose model can be "unloaded" (current() undefined) and whose calls in flight are counted. */
function target(model: Voice) {
  let loaded: Voice | undefined = model;
  const state = { busy: 0, loads: 0 };
  const handleTarget: HandleTarget = {
    current: () => loaded,
    load: async () => {
      state.loads++;
      loaded = model;
      return model;
    },
    last: () => model,
    begin: () => {
      state.busy++;
      return () => state.busy--;
    },
  };
  return { handleTarget, state, unload: () => (loaded = undefined) };
}

describe('model handle', () => {
  it('counts a promise call as busy until it settles, and reads plain properties', async () => {
    const { handleTarget, state } = target(voice());
    const handle = modelHandle<Voice>(handleTarget);
    expect(handle.sampleRate).to.equal(22_050);
    const answer = handle.classify('hi');
    expect(state.busy).to.equal(1);
    expect(await answer).to.equal('HI');
    expect(state.busy).to.equal(0);
  });

  it('counts a stream as busy until it ends, or until it is closed, even before its first item', async () => {
    const { handleTarget, state } = target(voice());
    const handle = modelHandle<Voice>(handleTarget);
    const words: string[] = [];
    for await (const word of handle.speak('one two')) {
      expect(state.busy).to.equal(1);
      words.push(word);
    }
    expect(words).to.deep.equal(['one', 'two']);
    expect(state.busy).to.equal(0);

    const unread = handle.speak('never read')[Symbol.asyncIterator]();
    expect(state.busy).to.equal(1);
    await unread.return!();
    expect(state.busy).to.equal(0);
  });

  it('loads the model again for a call after it was unloaded, and ignores dispose', async () => {
    const { handleTarget, state, unload } = target(voice());
    const handle = modelHandle<Voice>(handleTarget);
    await handle.dispose();
    unload();
    expect(await handle.classify('back')).to.equal('BACK');
    unload();
    const words: string[] = [];
    for await (const word of handle.speak('a b')) words.push(word);
    expect(words).to.deep.equal(['a', 'b']);
    expect(state).to.deep.equal({ busy: 0, loads: 2 });
  });
});
