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

  it('takes the realtime session limits from REALTIME_* (8 sessions, 2 per key, 60 minutes, 60 s idle by default)', () => {
    expect(loadConfig({}).limits.realtime).to.include({ maxSessions: 8, maxSessionsPerKey: 2, maxSessionSeconds: 3600, idleMs: 60_000 });
    const env = { REALTIME_MAX_SESSIONS: '12', REALTIME_MAX_SESSIONS_PER_KEY: '4', REALTIME_SESSION_MINUTES: '240', REALTIME_IDLE_SECONDS: '300' };
    const { realtime } = loadConfig(env).limits;
    expect(realtime).to.include({ maxSessions: 12, maxSessionsPerKey: 4, maxSessionSeconds: 4 * 3600, idleMs: 300_000 });
    // The bounds that keep a session's memory in check stay as they are.
    expect(realtime.sessionMaxBytes).to.equal(loadConfig({}).limits.realtime.sessionMaxBytes);
    expect(loadConfig({ REALTIME_MAX_SESSIONS: '1' }).limits.realtime).to.include({ maxSessions: 1, maxSessionsPerKey: 1 });
    expect(() => loadConfig({ REALTIME_MAX_SESSIONS: '2', REALTIME_MAX_SESSIONS_PER_KEY: '3' })).to.throw(
      /REALTIME_MAX_SESSIONS_PER_KEY \(3\) must not be more than REALTIME_MAX_SESSIONS \(2\)/,
    );
    for (const [name, bad] of [
      ['REALTIME_MAX_SESSIONS', '0'],
      ['REALTIME_MAX_SESSIONS', '65'],
      ['REALTIME_MAX_SESSIONS_PER_KEY', 'three'],
      ['REALTIME_SESSION_MINUTES', '1.5'],
      ['REALTIME_SESSION_MINUTES', '1441'],
      ['REALTIME_IDLE_SECONDS', ''],
      ['REALTIME_IDLE_SECONDS', '3601'],
    ] as const) {
      expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).to.throw(new RegExp(`${name} must be a whole number from 1 to`));
    }
  });

  it('takes the JSON body limit from MAX_JSON_MB (1 MB by default, 1 to 64)', () => {
    expect(loadConfig({}).limits.maxJsonBytes).to.equal(1024 * 1024);
    expect(loadConfig({ MAX_JSON_MB: '8' }).limits).to.include({ maxJsonBytes: 8 * 1024 * 1024, maxAudioBytes: 128 * 1024 * 1024 });
    for (const bad of ['0', '2.5', '', '65']) expect(() => loadConfig({ MAX_JSON_MB: bad }), bad).to.throw(/MAX_JSON_MB must be a whole number from 1 to 64/);
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
