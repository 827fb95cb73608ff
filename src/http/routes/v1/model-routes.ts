import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import { jsonResponse, V1_COMMON_ERRORS, type Operation } from '../../operation.js';
import { StringEnum } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';

const ModelInfo = Type.Object(
  {
    id: Type.String({ description: 'Model id to pass as `model`.' }),
    task: StringEnum(['text-classification', 'translation', 'speech-to-text', 'text-to-speech', 'voice-activity-detection'], {
      description: 'Which endpoint serves it (voice-activity-detection: the `vad_filter` of speech-to-text).',
    }),
    engine: Type.String({ description: 'Engine that runs it.' }),
    description: Type.Optional(Type.String({ description: 'What the model is.' })),
    license: Type.Optional(Type.String({ description: 'License of the weights.' })),
    default: Type.Optional(Type.Boolean()),
    installed: Type.Boolean({ description: 'False until its files are downloaded; requests then answer 503.' }),
    loaded: Type.Optional(Type.Boolean({ description: 'Whether it is in memory now.' })),
    install: Type.Optional(Type.String({ description: 'Command that installs it.' })),
  },
  { $id: 'ModelInfo', description: 'Engines may add further fields (e.g. languages or voices).' },
);
const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelInfo) }, { $id: 'ModelList' });

export function modelRoutes(router: Router, { models }: V1RouteDeps): void {
  router.get('/models', async (ctx) => {
    ctx.body = { object: 'list', data: await models.list() };
  });
}

export const modelOperations = (): Operation[] => [
  {
    method: 'get',
    path: '/v1/models',
    tags: ['models'],
    summary: 'List the models in the manifest',
    description: 'Every model this server knows, with its task and whether its files are installed.',
    secured: true,
    responses: { '200': jsonResponse('The models.', ModelList), '401': V1_COMMON_ERRORS['401']!, '500': V1_COMMON_ERRORS['500']! },
  },
];
