/**
 * Routes a request through exactly one router, chosen by its first path segment, instead of
 * chaining every router's `routes()` and `allowedMethods()` (which matched the path against
 * each router in turn and stacked a promise per router: a large share of a `GET /`; figures in
 * docs/benchmarks.md, "HTTP layer").
 *
 * The answers stay those of the chained routers: a router only ever matches paths under its
 * own prefix, so for any path at most one router can match, and it is the one chosen here.
 * Where none matches, the chosen router's `allowedMethods()` answers as any of them would
 * (nothing, so 404, or 501 for a method no router implements; every router has the default
 * method list). routerTree checks that premise once, when the app is built.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';

interface RouterBranch {
  /** A literal first segment such as "/users"; every route of `router` must lie under it. */
  prefix: string;
  router: Router;
}

/**
 * `branches` take the paths equal to or under their prefix; `fallback` takes the rest and must
 * have no route there. Not `allowedMethods({ throw: true })`: the thrown 405 would carry no
 * Allow header; the error middleware turns the bare 405/501 status into our error body.
 */
export function routerTree(branches: readonly RouterBranch[], fallback: Router): Middleware & { routers: Router[] } {
  for (const { prefix, router } of branches) {
    if (!/^\/[A-Za-z0-9._~-]+$/.test(prefix)) throw new Error(`router prefix must be one literal segment, got "${prefix}"`);
    for (const path of routePaths(router)) {
      if (!isUnder(path, prefix)) throw new Error(`route ${path} lies outside its router's prefix ${prefix}`);
    }
  }
  for (const path of routePaths(fallback)) {
    const firstSegment = `/${path.split('/')[1] ?? ''}`;
    if (/[:*(?{]/.test(firstSegment) || branches.some(({ prefix }) => isUnder(path, prefix))) {
      throw new Error(`fallback route ${path} could match a path that a prefixed router owns`);
    }
  }

  const dispatchers = branches.map(({ prefix, router }) => ({ prefix, dispatch: routerMiddleware(router) }));
  const dispatchFallback = routerMiddleware(fallback);
  const tree: Middleware = (ctx, next) => {
    for (const { prefix, dispatch } of dispatchers) {
      if (isUnder(ctx.path, prefix)) return dispatch(ctx, next);
    }
    return dispatchFallback(ctx, next);
  };
  // Like the `router` a `router.routes()` middleware carries: lets tests list every route.
  return Object.assign(tree, { routers: [...branches.map(({ router }) => router), fallback] });
}

/** `app.use(router.routes()); app.use(router.allowedMethods())`, as one middleware. */
function routerMiddleware(router: Router): Middleware {
  const routes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  return (ctx, next) => routes(ctx, () => allowedMethods(ctx, next));
}

function routePaths(router: Router): string[] {
  return router.stack.map((layer) => String(layer.path));
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
