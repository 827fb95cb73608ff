/** ApertiumTranslator over stand-in stages: what a client sees when the processes fail. */
import { expect } from 'chai';
import { InferenceFailedError } from '../../../src/errors.js';
import { ApertiumPipeline, ApertiumPipelineError } from '../../../src/inference/translation/apertium-pipeline.js';
import { ApertiumTranslator } from '../../../src/inference/translation/apertium-translator.js';

describe('ApertiumTranslator (stand-in stages)', () => {
  let translator: ApertiumTranslator;
  beforeEach(() => {
    // Echoes every chunk, and exits on one containing POISON, printing internals to stderr.
    const stage = ['bash', '-c', `sed -u -z '/POISON/{s/.*/parse error in \\/usr\\/share\\/secret.bin/w /dev/stderr\nQ 3\n}'`];
    // The time-out only has to outlast bash and sed starting on a busy machine (npm test runs two files at once).
    const pipeline = new ApertiumPipeline({ commands: [stage], name: 'xx-yy', timeoutMs: 3000, timeoutPerCharMs: 0 });
    translator = new ApertiumTranslator({ modelId: 'apertium-xx-yy', pipeline, source: 'xx', target: 'yy' });
  });
  afterEach(() => translator.dispose());

  it('keeps line breaks around the chunks it sends', async () => {
    expect(await translator.translate('one ^\n\n  two ~\n', { targetLanguage: 'yy' })).to.equal('one ^\n\n  two ~\n');
  });

  it('answers a failure with a client message that names no process, path or stderr', async () => {
    const error = await translator.translate('POISON', { targetLanguage: 'yy' }).then(
      () => expect.fail('should reject'),
      (failure: unknown) => failure as InferenceFailedError,
    );
    expect(error).to.be.instanceOf(InferenceFailedError);
    expect(error.status).to.equal(503);
    expect(error.message).to.equal('Model "apertium-xx-yy" failed while answering: the translation processes stopped on this text');
    // The details stay with the cause, for operators.
    expect(error.cause).to.be.instanceOf(ApertiumPipelineError);
    expect((error.cause as Error).message).to.match(/bash exited \(code 3\): parse error in \/usr\/share\/secret\.bin/);
  });
});
