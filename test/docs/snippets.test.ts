/**
 * The reading of documentation examples that test/docs/snippets.slow.test.ts runs: commands and
 * their promised outputs, the loose comparison, what may not run in a test, the models named.
 */
import { expect } from 'chai';
import { documentationFiles, fencedBlocks, readDoc, type FencedBlock } from './markdown.js';
import { atPort, forbiddenCommand, isRunnable, looseMismatch, modelsNamed, pythonImports, shellCommands } from './snippets.js';

const block = (language: string, code: string, flags: string[] = []): FencedBlock => ({ language, flags, code, line: 1 });

describe('documentation examples: reading them', () => {
  it('splits a shell block into commands with continuation lines, and takes `# {…}` after a command as its output', () => {
    const commands = shellCommands(
      [
        '# Speech to text',
        'curl -s localhost:3000/v1/x \\',
        '  -F a=b',
        '# {"text":"hi"}',
        'curl -s localhost:3000/users   # 200: the list',
        '# prose, not output',
        '',
        'echo done',
      ].join('\n'),
    );
    expect(commands).to.deep.equal([
      { text: 'curl -s localhost:3000/v1/x \\\n  -F a=b', expected: '{"text":"hi"}' },
      { text: 'curl -s localhost:3000/users   # 200: the list' },
      { text: 'echo done' },
    ]);
  });

  it('compares outputs loosely: … for anything, numbers to the digits shown, whitespace free', () => {
    expect(looseMismatch('{"id":1,"created_at":"…"}', '{"id":1,"created_at":"2026-11-26T15:16:19.542Z"}\n')).to.equal(undefined);
    expect(looseMismatch('{"embedding":[0.1265…,…]}', '{"embedding":[0.12653520703315735,-0.03,0.5]}')).to.equal(undefined);
    expect(looseMismatch('{"confidence":0.941}', '{"confidence":0.941496258902138}')).to.equal(undefined);
    expect(looseMismatch('{"confidence":0.941496258902138}', '{"confidence":0.9414971}')).to.equal(undefined);
    expect(looseMismatch('[{"language":"es","confidence":40},…]', '[{"language":"es","confidence":40},{"language":"fr","confidence":20}]')).to.equal(undefined);
    expect(looseMismatch('{"confidence":0.941}', '{"confidence":0.95}')).to.match(/near 0.941/);
    expect(looseMismatch('{"id":1}', '{"id":2}')).to.match(/expected/);
    expect(looseMismatch('{"text":"a b"}', '{"text":"a b c"}')).to.match(/expected/);
  });

  it('refuses to run installs, servers and hub downloads unless the fence says no-run', () => {
    expect(forbiddenCommand(block('sh', 'npm ci\nnpm start'))).to.match(/npm ci/);
    expect(forbiddenCommand(block('sh', 'npm run download-models -- whisper-base'))).to.match(/model hub/);
    expect(forbiddenCommand(block('sh', 'npm run download-models -- --list'))).to.equal(undefined);
    expect(forbiddenCommand(block('sh', 'npm run -s keys -- list'))).to.equal(undefined);
    expect(isRunnable(block('sh', 'npm ci', ['no-run']))).to.equal(false);
    expect(isRunnable(block('', 'a tree'))).to.equal(false);
    expect(isRunnable(block('python', 'print(1)'))).to.equal(true);
  });

  it('finds the models a block names, whole names only, minus optional ones', () => {
    const names = ['whisper-base', 'whisper-base-pypi', 'whisper-tiny.en', 'tts-1', 'tts-1-hd'];
    expect(modelsNamed(block('sh', '-F model=whisper-base-pypi -d \'{"model":"tts-1"}\''), names)).to.deep.equal(['whisper-base-pypi', 'tts-1']);
    expect(modelsNamed(block('ts', "model: 'whisper-tiny.en' … model: 'whisper-base'", ['optional=whisper-base']), names)).to.deep.equal(['whisper-tiny.en']);
    expect(modelsNamed(block('sh', '-F model=whisper-base -F x=tts-1', ['absent=whisper-base']), names)).to.deep.equal(['tts-1']);
  });

  it('reads Python imports and points the documented port at the test server', () => {
    expect(pythonImports('import os\nfrom openai import OpenAI\nfrom huggingface_hub.x import y\n')).to.deep.equal(['os', 'openai', 'huggingface_hub']);
    expect(atPort("curl localhost:3000/x http://127.0.0.1:3000/v1 'ws://127.0.0.1:30001'", 4123)).to.equal(
      "curl localhost:4123/x http://127.0.0.1:4123/v1 'ws://127.0.0.1:30001'",
    );
  });

  it('every runnable shell block of the docs can be read as commands, and none runs what a test must not', () => {
    for (const file of documentationFiles()) {
      for (const found of fencedBlocks(readDoc(file)).filter(isRunnable)) {
        expect(forbiddenCommand(found), `${file}:${found.line}`).to.equal(undefined);
        if (found.language === 'sh' || found.language === 'bash') expect(shellCommands(found.code), `${file}:${found.line}`).to.not.be.empty;
      }
    }
  });
});
