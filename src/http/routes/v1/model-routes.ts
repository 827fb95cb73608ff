import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import { UnknownModelError } from '../../../errors.js';
import { jsonError, jsonResponse, V1_COMMON_ERRORS, type Operation } from '../../operation.js';
import { StringEnum } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';

const ModelInfo = Type.Object(
  {
    id: Type.String({ description: 'Model id (or alias) to pass as `model`.' }),
    object: Type.Literal('model'),
    created: Type.Integer({ description: 'Unix time; 0 (unknown) for local models.' }),
    owned_by: Type.String(),
    task: StringEnum(['text-classification', 'translation', 'speech-to-text', 'text-to-speech', 'voice-activity-detection'], {
      description: 'Which endpoint serves it (voice-activity-detection: the `vad_filter` of speech-to-text).',
    }),
    engine: Type.String({ description: 'Engine that runs it.' }),
    description: Type.Optional(Type.String({ description: 'What the model is.' })),
    license: Type.Optional(Type.String({ description: 'License of the weights.' })),
    default: Type.Optional(Type.Boolean()),
    installed: Type.Boolean({ description: 'False until its files are installed (requests then answer 503); for an alias, whether any candidate is.' }),
    loaded: Type.Optional(Type.Boolean({ description: 'Whether it is in memory now.' })),
    install: Type.Optional(Type.String({ description: 'Command that installs it.' })),
    alias_of: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'For an alias (`whisper-1`, `tts-1`…): the installed model it stands for now.' })),
  },
  { $id: 'ModelInfo', description: 'OpenAI model object fields plus ours; engines may add more (e.g. languages or voices).' },
);
const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelInfo) }, { $id: 'ModelList' });

export function modelRoutes(router: Router, { models }: V1RouteDeps): void {
  router.get('/models', async (ctx) => {
    const all = await models.list();
    ctx.body = { object: 'list', data: ctx.query.installed === 'true' ? all.filter((info) => info.installed) : all };
  });
  router.get('/models/:id', async (ctx) => {
    const info = (await models.list()).find((model) => model.id === ctx.params.id);
    if (!info) throw new UnknownModelError(ctx.params.id!, (await models.list()).filter((model) => model.installed).map((model) => model.id));
    ctx.body = info;
  });
}

export const modelOperations = (): Operation[] => [
  {
    method: 'get',
    path: '/v1/models',
    tags: ['models'],
    summary: 'List the models and aliases',
    description: 'Every model of the manifest with its task and whether it is installed, then the aliases (`whisper-1`, `tts-1`, …) with the model each stands for. `?installed=true` lists installed ones only.',
    secured: true,
    parameters: [{ name: 'installed', in: 'query', required: false, description: '`true`: installed models (and aliases with an installed model) only.', schema: { type: 'string', enum: ['true', 'false'] } }],
    responses: { '200': jsonResponse('The models.', ModelList), '401': V1_COMMON_ERRORS['401']!, '500': V1_COMMON_ERRORS['500']! },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    tags: ['models'],
    summary: 'One model or alias',
    secured: true,
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '200': jsonResponse('The model.', ModelInfo),
      '401': V1_COMMON_ERRORS['401']!,
      '404': jsonError('No model or alias has this id (the message lists the installed models).', ['model_not_found']),
      '500': V1_COMMON_ERRORS['500']!,
    },
  },
];
