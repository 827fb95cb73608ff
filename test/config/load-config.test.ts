import { expect } from 'chai';
import { loadConfig } from '../../src/config/load-config.js';

describe('loadConfig: the service settings', () => {
  it('reads MODEL_ALIASES as alias=model pairs', () => {
    expect(loadConfig({ MODEL_ALIASES: 'whisper-1=whisper-tiny.en, tts-1=piper-en_US-joe-medium' }).modelAliases).to.deep.equal({
      'whisper-1': 'whisper-tiny.en',
      'tts-1': 'piper-en_US-joe-medium',
    });
    expect(() => loadConfig({ MODEL_ALIASES: 'whisper-1' })).to.throw(/MODEL_ALIASES/);
  });

  it('reads SHUTDOWN_DELAY_SECONDS (0 by default) and LIBRETRANSLATE_MODELS', () => {
    expect(loadConfig({}).teiModel).to.equal(undefined);
    expect(loadConfig({ TEI_MODEL: ' minilm-sentiment ' }).teiModel).to.equal('minilm-sentiment');
    expect(loadConfig({}).shutdownDelayMs).to.equal(0);
    expect(loadConfig({ SHUTDOWN_DELAY_SECONDS: '2.5' }).shutdownDelayMs).to.equal(2500);
    for (const bad of ['-1', 'soon', '', '301']) expect(() => loadConfig({ SHUTDOWN_DELAY_SECONDS: bad }), bad).to.throw(/SHUTDOWN_DELAY_SECONDS/);
    expect(loadConfig({ LIBRETRANSLATE_MODELS: 'opus-mt-en-es, apertium-eng-spa' }).libreTranslateModels).to.deep.equal(['opus-mt-en-es', 'apertium-eng-spa']);
  });

  it('takes the audio limits from MAX_AUDIO_MB and MAX_AUDIO_MINUTES (128 MB and 60 minutes by default)', () => {
    expect(loadConfig({}).limits).to.include({ maxAudioBytes: 128 * 1024 * 1024, maxAudioSeconds: 3600 });
    const limits = loadConfig({ MAX_AUDIO_MB: '25', MAX_AUDIO_MINUTES: '120' }).limits;
    expect(limits).to.include({ maxAudioBytes: 25 * 1024 * 1024, maxAudioSeconds: 7200 });
    expect(limits.maxJsonBytes).to.equal(loadConfig({}).limits.maxJsonBytes);
    for (const bad of ['0', '1.5', 'lots', '', '1025'])
      expect(() => loadConfig({ MAX_AUDIO_MB: bad }), bad).to.throw(/MAX_AUDIO_MB must be a whole number from 1 to 1024/);
    for (const bad of ['0', '-5', '241']) expect(() => loadConfig({ MAX_AUDIO_MINUTES: bad }), bad).to.throw(/MAX_AUDIO_MINUTES/);
  });

  it('reads the Files and Batch API settings; files live beside the SQLite database by default', () => {
    expect(loadConfig({}).batches).to.deep.equal({
      filesDir: 'data/files',
      maxFileBytes: 512 * 1024 * 1024,
      maxTotalBytes: 10_240 * 1024 * 1024,
      concurrency: 16,
      leaseSeconds: 30,
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/lis/app.db' }).batches.filesDir).to.equal('/srv/lis/files');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/lis', FILES_DIR: '/mnt/shared' }).batches.filesDir).to.equal('/mnt/shared');
    const set = loadConfig({ FILES_MAX_MB: '2', FILES_MAX_TOTAL_MB: '4', BATCH_CONCURRENCY: '1', BATCH_LEASE_SECONDS: '5' }).batches;
    expect(set).to.include({ maxFileBytes: 2 * 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024, concurrency: 1, leaseSeconds: 5 });
    for (const name of ['FILES_MAX_MB', 'FILES_MAX_TOTAL_MB', 'BATCH_CONCURRENCY', 'BATCH_LEASE_SECONDS']) {
      expect(() => loadConfig({ [name]: '0' }), name).to.throw(new RegExp(`${name} must be a whole number`));
    }
  });

  it('takes a postgres:// DATABASE_URL, which must parse (the password is not echoed)', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }).databasePath).to.equal('postgres://postgres@127.0.0.1:5432/test');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://user:secret@[bad' })).to.throw(/not a valid postgres:\/\/ URL: "postgres:\/\/user:\*\*\*@\[bad"/);
  });
});
