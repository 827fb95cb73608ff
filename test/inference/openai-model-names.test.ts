/**
 * OpenAI's model names, as the installed SDKs list them, against our one alias table
 * (models/models.json `aliases`): every name openai-node's and openai-python's model unions give
 * for audio transcription and translation, speech, embeddings and realtime transcription must be
 * an alias of a model of that task, so an app that sends the SDK's name works. A new SDK release
 * that names a new model fails here, naming it. Names that are not aliases are refused where
 * they are used (404 model_not_found over HTTP, an error event at a realtime session update):
 * checked below and in test/http/realtime-spec.test.ts.
 *
 * openai-node is a devDependency; openai-python is the one scripts/conformance/requirements.txt
 * pins, read from the tools venv (`.cache/venv`, or OPENAI_PYTHON), whose half is skipped without it.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Manifest, readManifest } from '../../src/inference/manifest.js';
import type { Task } from '../../src/inference/types.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { createTestApp } from '../helpers/test-app.js';

type Named = Partial<Record<Task, string[]>>;

const NODE_SDK = join(REPO_ROOT, 'node_modules/openai');

/** The string literals of a TypeScript type (`'a' | 'b' | (string & {})`). */
function literals(typeText: string): string[] {
  return [...typeText.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

/** A type alias's literals: `export type Name = …;` in a .d.ts file of the node SDK. */
function typeAlias(file: string, name: string): string[] {
  const text = readFileSync(join(NODE_SDK, file), 'utf8');
  const found = new RegExp(`export type ${name} = ([^;]+);`).exec(text);
  if (!found) throw new Error(`openai-node ${file} has no type ${name}: the SDK changed its layout; update this test`);
  return literals(found[1]!);
}

/** The literals of `field?:` in `interface Name { … }` of a .d.ts file of the node SDK. */
function interfaceField(file: string, name: string, field: string): string[] {
  const text = readFileSync(join(NODE_SDK, file), 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  const found = start < 0 ? null : new RegExp(`\\n\\s+${field}\\??: ([^;]+);`).exec(text.slice(start));
  if (!found) throw new Error(`openai-node ${file} has no ${name}.${field}: the SDK changed its layout; update this test`);
  return literals(found[1]!);
}

function nodeSdkNames(): Named {
  return {
    // Transcriptions and translations take AudioModel; realtime transcription its own list.
    'speech-to-text': [
      ...typeAlias('resources/audio/audio.d.ts', 'AudioModel'),
      ...interfaceField('resources/realtime/realtime.d.ts', 'AudioTranscription', 'model'),
    ],
    'text-to-speech': typeAlias('resources/audio/speech.d.ts', 'SpeechModel'),
    embeddings: typeAlias('resources/embeddings.d.ts', 'EmbeddingModel'),
  };
}

/** The same unions, read by the installed openai-python itself (typing.get_args), not parsed from its source. */
const PYTHON_NAMES = `
import json, typing, openai
from openai.types import audio_model, embedding_model
from openai.types.audio import speech_model
from openai.types.realtime import audio_transcription

def literals(tp):
    if typing.get_origin(tp) is typing.Literal:
        return list(typing.get_args(tp))
    return [name for arg in typing.get_args(tp) for name in literals(arg)]

# A pydantic model: its field's annotation is the union.
model = audio_transcription.AudioTranscription.model_fields["model"].annotation
print(json.dumps({
    "version": openai.__version__,
    "speech-to-text": literals(audio_model.AudioModel) + literals(model),
    "text-to-speech": literals(speech_model.SpeechModel),
    "embeddings": literals(embedding_model.EmbeddingModel),
}))
`;

function pythonSdkNames(): { version: string; names: Named } | string {
  const python = process.env.OPENAI_PYTHON ?? join(REPO_ROOT, '.cache/venv/bin/python');
  if (!existsSync(python)) return `no Python at ${python} (npm run test-models makes the venv; pip install -r scripts/conformance/requirements.txt)`;
  const result = spawnSync(python, ['-c', PYTHON_NAMES], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) {
    if (/No module named 'openai'/.test(result.stderr))
      return `openai-python is not installed in ${python} (pip install -r scripts/conformance/requirements.txt)`;
    throw new Error(`reading openai-python's model names failed: ${result.stderr}`);
  }
  const { version, ...names } = JSON.parse(result.stdout) as { version: string } & Named;
  return { version, names };
}

/** Each name the SDK lists that is not an alias of its task in our table, as `task: name`. */
function missing(names: Named, manifest: Manifest): string[] {
  return Object.entries(names).flatMap(([task, list]) =>
    [...new Set(list)].filter((name) => manifest.aliases?.[name]?.task !== task).map((name) => `${task}: ${name}`),
  );
}

describe("OpenAI's model names in the installed SDKs, against our alias table", () => {
  let manifest: Manifest;

  before(async () => {
    manifest = await readManifest(join(REPO_ROOT, 'models/models.json'));
  });

  it(`openai-node ${JSON.parse(readFileSync(join(NODE_SDK, 'package.json'), 'utf8')).version}: every model of its unions is an alias of its task`, () => {
    const names = nodeSdkNames();
    // The parse found the unions (the names current apps send by default among them).
    expect(names['speech-to-text']).to.include.members(['whisper-1', 'gpt-realtime-whisper']);
    expect(names['text-to-speech']).to.include('tts-1');
    expect(names.embeddings).to.include('text-embedding-3-small');
    expect(missing(names, manifest)).to.deep.equal([]);
  });

  it('openai-python (the pinned release): every model of its unions is an alias of its task', function () {
    const python = pythonSdkNames();
    if (typeof python === 'string') {
      console.warn(`      skipped: ${python}`);
      this.skip();
    }
    const pinned = /^openai==(\S+)$/m.exec(readFileSync(join(REPO_ROOT, 'scripts/conformance/requirements.txt'), 'utf8'))?.[1];
    expect(python.version, 'the venv holds the openai release requirements.txt pins').to.equal(pinned);
    expect(python.names['speech-to-text']).to.include('whisper-1');
    expect(missing(python.names, manifest)).to.deep.equal([]);
  });

  it('refuses a name that is no alias or model with 404 model_not_found naming it', async () => {
    const app = await createTestApp({ manifest });
    try {
      const res = await app.request
        .post('/v1/audio/speech')
        .set('Authorization', `Bearer ${app.config.apiKeys[0]}`)
        .send({ model: 'gpt-9-tts', voice: 'alloy', input: 'Hello.' });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.include({ code: 'model_not_found' });
      expect(res.body.error.message).to.include('"gpt-9-tts"');
    } finally {
      await app.close();
    }
  });
});
