import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { routerTree } from '../../src/http/router-tree.js';

function routerWith(prefix: string | undefined, ...paths: string[]): Router {
  const router = new Router({ sensitive: true, ...(prefix ? { prefix } : {}) });
  for (const path of paths) router.get(path, (ctx) => void (ctx.body = `${prefix ?? ''}${path}`));
  return router;
}

describe('routerTree', () => {
  const app = new Koa();
  const users = routerWith('/users', '/', '/:id');
  users.post('/', (ctx) => void (ctx.body = 'created'));
  app.use(routerTree([{ prefix: '/users', router: users }], routerWith(undefined, '/', '/docs')));
  const request = supertest(app.callback());

  it('dispatches by first segment to the one router that can match', async () => {
    expect((await request.get('/users')).text).to.equal('/users/');
    expect((await request.get('/users/7')).text).to.equal('/users/:id');
    expect((await request.get('/docs')).text).to.equal('/docs');
    expect((await request.get('/')).text).to.equal('/');
  });

  it('answers as chained routers would: 404, 405 with Allow, 501 for unknown methods', async () => {
    expect((await request.get('/usersx')).status).to.equal(404);
    expect((await request.get('/nothing')).status).to.equal(404);
    const wrongMethod = await request.delete('/users');
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers.allow).to.equal('HEAD, GET, POST');
    expect((await request.post('/docs')).status).to.equal(405);
    expect((await request.propfind('/users')).status).to.equal(501);
    expect((await request.propfind('/nothing')).status).to.equal(501);
  });

  it('refuses, when built, a router with a route outside its prefix or a fallback that could take a prefixed path', () => {
    expect(() => routerTree([{ prefix: '/users', router: routerWith(undefined, '/other') }], routerWith(undefined))).to.throw(/outside/);
    expect(() => routerTree([{ prefix: '/users', router: routerWith('/users', '/') }], routerWith(undefined, '/users/extra'))).to.throw(/fallback/);
    expect(() => routerTree([{ prefix: '/users', router: routerWith('/users', '/') }], routerWith(undefined, '/:page'))).to.throw(/fallback/);
  });

  it('lists its routers for tests that enumerate routes', () => {
    const tree = routerTree([{ prefix: '/users', router: users }], routerWith(undefined, '/'));
    expect(tree.routers).to.have.length(2);
  });
});
