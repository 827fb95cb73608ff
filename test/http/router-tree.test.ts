import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { documentedRouter, type DocumentedRouter } from '../../src/http/operation.js';
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

  it('gives a route without parameters the same context the router gives it', async () => {
    // What a handler (and the metrics, ctx.routerPath) can read of the routing: @koa/router's public context fields.
    const seen = (ctx: Koa.Context) => {
      const routed = ctx as Koa.Context & Record<string, unknown>;
      return {
        matched: (routed.matched as { path: string }[]).map((layer) => layer.path),
        router: routed.router === named,
        routeMatched: routed.routeMatched,
        captures: routed.captures,
        params: ctx.params,
        requestParams: (ctx.request as unknown as { params: unknown }).params,
        sameParams: ctx.params === (ctx.request as unknown as { params: unknown }).params,
        routerPath: routed.routerPath,
        routerName: routed.routerName,
      };
    };
    const named = documentedRouter({ sensitive: true, prefix: '/things' });
    const handler = (ctx: Koa.Context) => void (ctx.body = seen(ctx));
    // As declareRoute does (it names no routes): each route's layer and middleware kept.
    const declare = (register: (router: DocumentedRouter) => void) => {
      register(named);
      named.declared.push({ layer: named.stack.at(-1)!, middleware: [handler] });
    };
    declare((router) => router.get('all', '/', handler));
    declare((router) => router.post('/', handler));
    declare((router) => router.get('/:id', handler));
    declare((router) => router.get('/static/list', handler));
    const viaTree = new Koa().use(routerTree([{ prefix: '/things', router: named }], routerWith(undefined, '/')));
    const viaRouter = new Koa().use(named.routes()).use(named.allowedMethods());
    for (const [method, path] of [
      ['get', '/things'],
      ['get', '/things/'],
      ['post', '/things'],
      ['get', '/things/static/list'],
      ['get', '/things/7'],
    ] as const) {
      const [tree, plain] = await Promise.all([supertest(viaTree.callback())[method](path), supertest(viaRouter.callback())[method](path)]);
      expect(tree.status, `${method} ${path}`).to.equal(plain.status);
      expect(tree.body, `${method} ${path}`).to.deep.equal(plain.body);
    }
    const head = await supertest(viaTree.callback()).head('/things');
    expect(head.status).to.equal(200);
    // The route without parameters ran without the router's per-request matching; one with them went through it.
    let matches = 0;
    const match = named.match.bind(named);
    named.match = (...args) => {
      matches++;
      return match(...args);
    };
    await supertest(viaTree.callback()).get('/things/static/list').expect(200);
    expect(matches).to.equal(0);
    await supertest(viaTree.callback()).get('/things/7').expect(200);
    expect(matches).to.equal(1);
  });

  it('lists its routers for tests that enumerate routes', () => {
    const tree = routerTree([{ prefix: '/users', router: users }], routerWith(undefined, '/'));
    expect(tree.routers).to.have.length(2);
  });
});
