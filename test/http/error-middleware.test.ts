import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import {
  AppError,
  InferenceFailedError,
  ModelNotInstalledError,
  ModelUnavailableError,
  PayloadTooLargeError,
  ServerBusyError,
  ValidationError,
} from '../../src/errors.js';
import { errorMiddleware } from '../../src/http/error-middleware.js';
import { createLogger } from '../../src/logger.js';

/** An app whose only handler throws the given error, answering in JSON, with its log captured. */
function appThrowing(error: unknown) {
  const lines: Array<Record<string, any>> = [];
  const app = new Koa();
  app.silent = true;
  app.use(errorMiddleware({ logger: createLogger('info', (line) => lines.push(JSON.parse(line))), formatFor: () => 'json' }));
  app.use(() => {
    throw error;
  });
  return { request: supertest(app.callback()), lines };
}

describe('error middleware: AppError.expose', () => {
  it('shows the messages of 4xx errors', async () => {
    const res = await appThrowing(new ValidationError('"model" is required', 'model')).request.get('/');
    expect(res.status).to.equal(400);
    expect(res.body.error).to.deep.equal({ message: '"model" is required', type: 'invalid_request_error', param: 'model', code: 'invalid_request' });
  });

  it("always carries OpenAI's param: the field at fault, or null when the error is about none", async () => {
    const fieldless = await appThrowing(new ValidationError('Request body must be a JSON object')).request.get('/');
    expect(Object.keys(fieldless.body.error)).to.deep.equal(['message', 'type', 'param', 'code']);
    expect(fieldless.body.error.param).to.equal(null);
    const tooLong = await appThrowing(new PayloadTooLargeError('"input" is 6000 characters; the limit is 5000', 'input')).request.get('/');
    expect(tooLong.body.error).to.include({ param: 'input', code: 'payload_too_large' });
    for (const error of [new ModelNotInstalledError('whisper-base'), new Error('boom'), Object.assign(new Error('too big'), { status: 413 })]) {
      const res = await appThrowing(error).request.get('/');
      expect(res.body.error, String(error)).to.have.property('param', null);
    }
  });

  it("types every 4xx as the client's error, as OpenAI does: 403 and 429 are not server errors", async () => {
    const types: Record<number, string> = {};
    for (const [status, code] of [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [403, 'admin_required'],
      [403, 'model_not_allowed'],
      [404, 'model_not_found'],
      [408, 'request_timeout'],
      [409, 'conflict'],
      [413, 'payload_too_large'],
      [429, 'rate_limited'],
    ] as const) {
      const res = await appThrowing(new AppError(status, code, 'x')).request.get('/');
      expect(res.status).to.equal(status);
      types[status] = res.body.error.type;
    }
    expect(types).to.deep.equal({
      400: 'invalid_request_error',
      401: 'authentication_error',
      403: 'invalid_request_error',
      404: 'not_found_error',
      408: 'invalid_request_error',
      409: 'invalid_request_error',
      413: 'invalid_request_error',
      429: 'invalid_request_error',
    });
  });

  it('shows the 503 messages written for clients: model_not_installed names the install command, server_busy keeps Retry-After', async () => {
    const missing = await appThrowing(new ModelNotInstalledError('whisper-tiny.en')).request.get('/');
    expect(missing.status).to.equal(503);
    expect(missing.body.error.message).to.equal('Model "whisper-tiny.en" is not installed. Run: npm run download-models -- whisper-tiny.en');

    const busy = await appThrowing(new ServerBusyError('Too many speech-to-text requests; retry shortly', 2)).request.get('/');
    expect(busy.status).to.equal(503);
    expect(busy.headers['retry-after']).to.equal('2');
    expect(busy.body.error).to.include({ code: 'server_busy', message: 'Too many speech-to-text requests; retry shortly' });
  });

  it('names only the model when a model fails to load, and logs the reason under the request id', async () => {
    const { request, lines } = appThrowing(new ModelUnavailableError('sentiment', 'ENOENT: /srv/models/sentiment/onnx/model.onnx'));
    const res = await request.get('/').set('X-Request-Id', 'req-1');
    expect(res.status).to.equal(503);
    expect(res.body.error).to.deep.equal({
      message: 'Model "sentiment" failed to load; the server log has the reason',
      type: 'service_unavailable_error',
      param: null,
      code: 'model_unavailable',
    });
    expect(JSON.stringify(res.body)).not.to.include('/srv/models');
    const logged = lines.find((line) => line.requestId === 'req-1');
    expect(logged?.message).to.include('ENOENT: /srv/models/sentiment/onnx/model.onnx');
  });

  it('does not echo why a model failed while answering', async () => {
    const res = await appThrowing(new InferenceFailedError('whisper-tiny.en', 'worker exited (code 134): std::bad_alloc')).request.get('/');
    expect(res.status).to.equal(503);
    expect(res.body.error).to.include({ code: 'inference_failed', message: 'Model "whisper-tiny.en" failed while answering; retrying usually works' });
  });

  it('answers any other unexposed AppError with the status text only', async () => {
    const res = await appThrowing(new AppError(502, 'internal_error', 'upstream at 10.0.0.7 refused')).request.get('/');
    expect(res.status).to.equal(502);
    expect(res.body.error.message).to.equal('Bad Gateway');
  });

  it('answers errors that are not AppErrors with a generic 500', async () => {
    const res = await appThrowing(new Error('SQLITE_CORRUPT: /var/lib/app.db')).request.get('/');
    expect(res.status).to.equal(500);
    expect(res.body.error).to.include({ code: 'internal_error', message: 'Internal Server Error' });
  });
});
