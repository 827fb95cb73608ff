import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { apertiumEngine } from '../../../src/inference/translation/apertium-engine.js';
import { readModeFile } from '../../../src/inference/translation/apertium-mode.js';
import { ApertiumPipeline } from '../../../src/inference/translation/apertium-pipeline.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import type { Translator } from '../../../src/inference/types.js';
import { ENG_SPA_MODE, skipWithoutApertium } from './apertium-available.js';

const entry: ManifestEntry = {
  id: 'apertium-eng-spa',
  task: 'translation',
  engine: 'apertium',
  description: 'test',
  license: 'GPL-3.0',
  options: { pair: 'eng-spa', source: 'en', target: 'es' },
};
const context = { modelDir: '/nonexistent/apertium-eng-spa', modelsDir: '/nonexistent' };

describe('apertium engine (Debian apertium-eng-spa)', () => {
  let translator: Translator;
  before(async function () {
    skipWithoutApertium(this);
    translator = await apertiumEngine.load(entry, context);
  });
  after(() => translator?.dispose());

  it('is installed when the mode file exists, and names the apt package otherwise', async () => {
    expect(await apertiumEngine.isInstalled?.(entry, context)).to.equal(true);
    const missing = { ...entry, options: { pair: 'xxx-yyy', source: 'xx', target: 'yy' } };
    expect(await apertiumEngine.isInstalled?.(missing, context)).to.equal(false);
    expect(apertiumEngine.installCommand?.(missing)).to.equal('apt-get install apertium apertium-xxx-yyy');
    expect(apertiumEngine.installCommand?.(entry)).to.equal('apt-get install apertium apertium-eng-spa');
  });

  it('translates an English paragraph into Spanish', async () => {
    const spanish = await translator.translate('I have two cats and a dog. The house is very big. We live in the city with our friends.', {
      targetLanguage: 'es',
    });
    expect(spanish).to.equal('Tengo dos gatos y un perro. La casa es muy grande. Vivimos en la ciudad con nuestros amigos.');
  });

  it('keeps numbers spaced from the words around them', async () => {
    const spanish = await translator.translate('We now have 4-month-old mice. He bought 3 cars in 2020.', { targetLanguage: 'es' });
    expect(spanish).to.include('ratones de 4 meses');
    expect(spanish).to.include('3 coches en 2020');
    expect(spanish).not.to.match(/\p{L}\d|\d\p{L}/u);
  });

  it('keeps paragraph breaks and the final period', async () => {
    const spanish = await translator.translate('The house is big.\n\nThe dog is small.\n', { targetLanguage: 'es' });
    expect(spanish).to.equal('La casa es grande.\n\nEl perro es pequeño.\n');
  });

  it('loses none of the ASCII punctuation', async () => {
    const chars = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
    const outputs = await Promise.all(chars.map((char) => translator.translate(`x ${char} y`, { targetLanguage: 'es' })));
    expect(chars.filter((char, index) => !outputs[index]?.includes(char))).to.deep.equal([]);
  });

  it('passes stream-format characters through as text', async () => {
    const spanish = await translator.translate('The cat [sic] costs $5 at x/y.', { targetLanguage: 'es' });
    expect(spanish).to.include('[sic]');
    expect(spanish).to.include('$5');
    expect(spanish).to.include('x/y');
  });
});

describe('ApertiumPipeline (real eng-spa processes)', () => {
  let pipeline: ApertiumPipeline;
  before(async function () {
    skipWithoutApertium(this);
    pipeline = new ApertiumPipeline({ commands: await readModeFile(ENG_SPA_MODE), name: 'eng-spa' });
  });
  after(() => pipeline?.dispose());

  it('answers concurrent requests each with its own translation, in order', async () => {
    const words = ['dog', 'cat', 'house', 'car', 'tree', 'book', 'city', 'friend'];
    const results = await Promise.all(words.map((word, index) => pipeline.translate([`I see the ${word}.[]`, `Number ${index}.[]`])));
    const expected = ['perro', 'gato', 'casa', 'coche', 'árbol', 'libro', 'ciudad', 'amigo'];
    results.forEach(([sentence, number], index) => {
      expect(sentence).to.include(expected[index]);
      expect(number).to.include(String(index));
    });
    expect(pipeline.starts).to.equal(1);
  });

  it('restarts after a stage is killed, and the next request succeeds', async () => {
    await pipeline.translate(['Hello.[]']);
    const before = pipeline.starts;
    const pid = pipeline.pids[4] as number;
    process.kill(pid, 'SIGKILL');
    // The supervisor notices the exit (and stops the other stages) asynchronously.
    for (const deadline = Date.now() + 5000; pipeline.pids.length > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(pipeline.pids).to.deep.equal([]);
    const [answer] = await pipeline.translate(['The dog.[]']);
    expect(answer).to.include('perro');
    expect(pipeline.starts).to.equal(before + 1);
    expect(pipeline.pids).not.to.include(pid);
  });

  it('retries a request that was in the pipe when a stage died', async () => {
    const pending = pipeline.translate(['The red car is fast.[]']);
    process.kill(pipeline.pids[0] as number, 'SIGKILL');
    const [answer] = await pending;
    expect(answer).to.include('coche');
  });

  it('fails a request that takes too long and restarts the pipeline', async () => {
    // `sleep` never answers a null flush, like a stuck stage.
    const stuck = new ApertiumPipeline({ commands: [['sleep', '30']], name: 'stuck', timeoutMs: 200, timeoutPerCharMs: 0 });
    try {
      await stuck.translate(['x']).then(
        () => expect.fail('should time out'),
        (error: Error) => expect(error.message).to.match(/no answer within 200 ms/),
      );
      expect(stuck.pids).to.deep.equal([]);
    } finally {
      await stuck.dispose();
    }
  });

  it('dispose kills every process and rejects later requests', async () => {
    const own = new ApertiumPipeline({ commands: await readModeFile(ENG_SPA_MODE), name: 'eng-spa' });
    await own.translate(['Hello.[]']);
    const pids = own.pids;
    await own.dispose();
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).to.throw();
    await own.translate(['Hello.[]']).then(
      () => expect.fail('should reject'),
      (error: Error) => expect(error.message).to.match(/disposed/),
    );
  });
});

describe('apertium entries of models/models.json', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../../models/models.json', import.meta.url), 'utf8')) as { models: ManifestEntry[] };
  const entries = manifest.models.filter((model) => model.engine === 'apertium');
  const sample: Record<string, string> = { en: 'I have two cats.', es: 'Tengo dos gatos.', ca: 'Tinc dos gats.', fr: "J'ai deux chats." };
  const expected: Record<string, RegExp> = { en: /two cats/i, es: /dos gatos/, ca: /dos gats/, fr: /deux chats/ };

  it('name their Debian package in the install command', () => {
    for (const model of entries) {
      expect(apertiumEngine.installCommand?.(model), model.id).to.match(/^apt-get install apertium apertium-[a-z-]+$/);
    }
  });

  for (const model of entries) {
    const { pair, source, target } = model.options as { pair: string; source: string; target: string };
    it(`${model.id} translates ${source} → ${target} (skipped unless its pair is installed)`, async function () {
      if (!existsSync(`/usr/share/apertium/modes/${pair}.mode`)) this.skip();
      const translator = await apertiumEngine.load(model, context);
      try {
        const output = await translator.translate(sample[source] as string, { targetLanguage: target });
        expect(output).to.match(expected[target] as RegExp);
      } finally {
        await translator.dispose();
      }
    });
  }
});
