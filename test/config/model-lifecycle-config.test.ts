import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

describe('loadConfig: model lifecycle settings', () => {
  it('defaults to no idle time-out, no memory budget and no preloads', () => {
    const config = loadConfig({});
    expect(config.modelIdleTtlSeconds).to.equal(-1);
    expect(config.modelsMaxMemoryBytes).to.equal(undefined);
    expect(config.preloadModels).to.deep.equal([]);
  });

  it('reads MODEL_IDLE_TTL in seconds, -1 for never', () => {
    expect(loadConfig({ MODEL_IDLE_TTL: '900' }).modelIdleTtlSeconds).to.equal(900);
    expect(loadConfig({ MODEL_IDLE_TTL: '0.5' }).modelIdleTtlSeconds).to.equal(0.5);
    expect(loadConfig({ MODEL_IDLE_TTL: '-1' }).modelIdleTtlSeconds).to.equal(-1);
    for (const bad of ['-2', 'soon', '', 'Infinity']) expect(() => loadConfig({ MODEL_IDLE_TTL: bad })).to.throw(ConfigError, 'MODEL_IDLE_TTL');
  });

  it('reads MODELS_MAX_MEMORY with decimal and binary units', () => {
    expect(loadConfig({ MODELS_MAX_MEMORY: '6GB' }).modelsMaxMemoryBytes).to.equal(6e9);
    expect(loadConfig({ MODELS_MAX_MEMORY: '512mb' }).modelsMaxMemoryBytes).to.equal(512e6);
    expect(loadConfig({ MODELS_MAX_MEMORY: '1.5GiB' }).modelsMaxMemoryBytes).to.equal(1.5 * 2 ** 30);
    expect(loadConfig({ MODELS_MAX_MEMORY: '1000000' }).modelsMaxMemoryBytes).to.equal(1e6);
    for (const bad of ['6 apples', '0GB', '-1GB', 'GB']) expect(() => loadConfig({ MODELS_MAX_MEMORY: bad })).to.throw(ConfigError, 'MODELS_MAX_MEMORY');
  });

  it('reads PRELOAD_MODELS as a comma list', () => {
    expect(loadConfig({ PRELOAD_MODELS: ' whisper-1, minilm-sentiment ,' }).preloadModels).to.deep.equal(['whisper-1', 'minilm-sentiment']);
  });
});
