import { Type } from '@sinclair/typebox';
import { UnknownModelError } from '../../../errors.js';
import { TASKS } from '../../../inference/tasks.js';
import { declareRoute, jsonError, jsonResponse, V1_COMMON_ERRORS, type DocumentedRouter } from '../../operation.js';
import { StringEnum } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';

const ModelInfo = Type.Object(
  {
    id: Type.String({ description: 'Model id (or alias) to pass as `model`.' }),
    object: Type.Literal('model'),
    created: Type.Integer({ description: 'Unix time; 0 (unknown) for local models.' }),
    owned_by: Type.String(),
    task: StringEnum(TASKS, {
      description: 'Which endpoint serves it (voice-activity-detection: the `vad_filter` of speech-to-text).',
    }),
    engine: Type.String({ description: 'Engine that runs it.' }),
    description: Type.Optional(Type.String({ description: 'What the model is.' })),
    license: Type.Optional(Type.String({ description: 'License of the weights.' })),
    default: Type.Optional(Type.Boolean()),
    installed: Type.Boolean({ description: 'False until its files are installed (requests then answer 503); for an alias, whether any candidate is.' }),
    loaded: Type.Optional(Type.Boolean({ description: 'Whether it is in memory now.' })),
    state: Type.Optional(
      StringEnum(['unloaded', 'loading', 'loaded'], { description: 'Where it is in its lifecycle (docs/operations.md, "Model lifecycle").' }),
    ),
    memory_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'Memory it takes: the RSS growth measured in this process during its load and its first call; while its first load runs, the size of its files; null before that.',
      }),
    ),
    last_used_at: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: 'Unix time of its last use since the server started; null if none.' }),
    ),
    install: Type.Optional(Type.String({ description: 'Command that installs it.' })),
    size_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'Bytes it takes once installed, known before download: the sum of its pinned file sizes, or a stated figure (a Debian package’s Installed-Size, a test model’s folder, an estimate); null when the catalogue does not know (`npm run download-models -- --list` asks the hub).',
      }),
    ),
    size_estimated: Type.Optional(
      Type.Literal(true, { description: 'Present when `size_bytes` is an estimate (docs/models.md, “Sizes”), not the sum of pinned file sizes.' }),
    ),
    languages: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Language codes it serves (`en`, `pt-BR`); null when not stated.' }),
    ),
    real_weights_run_here: Type.Optional(
      Type.Boolean({ description: 'Whether the model’s real weights were run by this project’s tests (the test models and their hub twins).' }),
    ),
    voices: Type.Optional(Type.Array(Type.String(), { description: 'Text to speech: the `voice` names it answers to.' })),
    alias_of: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'For an alias (`whisper-1`, `tts-1`…): the installed model it stands for now.' }),
    ),
  },
  { $id: 'ModelInfo', description: 'OpenAI model object fields plus ours; engines may add more (e.g. languages or voices).' },
);
const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelInfo) }, { $id: 'ModelList' });

export function modelRoutes(router: DocumentedRouter, { models }: V1RouteDeps): void {
  declareRoute(
    router,
    {
      method: 'get',
      path: '/models',
      tags: ['models'],
      summary: 'List the models and aliases',
      description:
        'Every model of the manifest with its task and whether it is installed, then the aliases (`whisper-1`, `tts-1`, …) with the model each stands for. `?installed=true` lists installed ones only.',
      secured: true,
      parameters: [
        {
          name: 'installed',
          in: 'query',
          required: false,
          description: '`true`: installed models (and aliases with an installed model) only.',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      ],
      responses: { '200': jsonResponse('The models.', ModelList), '401': V1_COMMON_ERRORS['401']!, '500': V1_COMMON_ERRORS['500']! },
    },
    async (ctx) => {
      const all = await models.list();
      ctx.body = { object: 'list', data: ctx.query.installed === 'true' ? all.filter((info) => info.installed) : all };
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/models/:id',
      tags: ['models'],
      summary: 'One model or alias',
      secured: true,
      parameters: [idParameter],
      responses: {
        '200': jsonResponse('The model.', ModelInfo),
        '401': V1_COMMON_ERRORS['401']!,
        '404': jsonError('No model or alias has this id (the message lists the installed models).', ['model_not_found']),
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      ctx.body = await modelInfo(models, ctx.params.id!);
    },
  );
  // Admin only (scoped-models.ts): load now / unload now; both answer the model object.
  declareRoute(
    router,
    {
      method: 'post',
      path: '/models/:id/load',
      tags: ['models'],
      summary: 'Load a model now (admin key)',
      description:
        'Loads the model (or the model an alias stands for), unloading least recently used idle models first if MODELS_MAX_MEMORY needs room; answers once it is loaded.',
      secured: true,
      parameters: [idParameter],
      responses: {
        '200': jsonResponse('The model, now loaded.', ModelInfo),
        ...ADMIN_MODEL_ERRORS,
        '500': V1_COMMON_ERRORS['500']!,
        '503': jsonError('It is not installed, failed to load, or the memory budget has no room (every loaded model is busy).', [
          'model_not_installed',
          'model_unavailable',
          'model_memory_exhausted',
        ]),
      },
    },
    async (ctx) => {
      const id = await models.load(ctx.params.id!);
      ctx.body = await modelInfo(models, id);
    },
  );
  declareRoute(
    router,
    {
      method: 'delete',
      path: '/models/:id/load',
      tags: ['models'],
      summary: 'Unload a model now (admin key)',
      description: 'Ends its worker threads so its memory returns; a model that is not loaded is left as it is (200).',
      secured: true,
      parameters: [idParameter],
      responses: {
        '200': jsonResponse('The model, now unloaded.', ModelInfo),
        ...ADMIN_MODEL_ERRORS,
        '409': jsonError('It is answering requests or still loading.', ['conflict']),
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const { id } = await models.unload(ctx.params.id!);
      ctx.body = await modelInfo(models, id);
    },
  );
}

const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The errors the load and unload routes share. */
const ADMIN_MODEL_ERRORS = {
  '401': V1_COMMON_ERRORS['401']!,
  '403': jsonError('The key is not an admin key.', ['admin_required']),
  '404': jsonError('No model or alias has this id.', ['model_not_found']),
};

/** One model's object, from one listing (each looks at every model's files); unknown: 404 naming the installed ones. */
async function modelInfo(models: V1RouteDeps['models'], id: string): Promise<unknown> {
  const all = await models.list();
  const info = all.find((model) => model.id === id);
  if (!info)
    throw new UnknownModelError(
      id,
      all.filter((model) => model.installed).map((model) => model.id),
    );
  return info;
}
