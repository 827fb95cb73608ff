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
 *
 * A request for a route without parameters (`GET /users`, `GET /v1/models`) skips the router's
 * own matching: @koa/router tests the path against every route, builds and composes a chain and
 * runs the route's regular expression again, per request, which cost more than all of our
 * middleware together (scripts/bench/http-middleware-cost.ts, docs/benchmarks.md). Which routes
 * a path matches is worked out once, when the app is built, from the router's routes as
 * declared (operation.ts keeps each one's middleware) and their public fields (`regexp`,
 * `methods`, `paramNames`), and the context gets the public fields the router sets
 * (test/http/router-tree.test.ts compares them). @koa/router is used through its public API only.
 */
import type Router from '@koa/router';
import compose from 'koa-compose';
import type { Context, Middleware, Next } from 'koa';
import type { DocumentedRouter } from './operation.js';

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

  const dispatchers = branches.map(({ prefix, router }) => ({ prefix, dispatch: withStaticRoutes(router, routerMiddleware(router)) }));
  const dispatchFallback = withStaticRoutes(fallback, routerMiddleware(fallback));
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

type Layer = Router['stack'][number];

/** A route without parameters, as the router would dispatch it. */
interface StaticRoute {
  layer: Layer;
  /** What the router stores as `ctx.matched`: every route whose path matched, whatever its method. */
  matched: readonly Layer[];
  handle: (ctx: Context, next: Next) => Promise<unknown>;
}

/**
 * `dispatch`, except that a request whose method and exact path name one route without
 * parameters runs that route directly, with the public context fields @koa/router sets for it
 * (test/http/router-tree.test.ts compares them). Only for a router whose routes were declared
 * (documentedRouter), when that path and method match that route alone and nothing else of the
 * router could apply (a host, a routerPath option, router-level middleware).
 */
function withStaticRoutes(router: Router, dispatch: Middleware): Middleware {
  const routes = staticRoutes(router);
  if (routes.size === 0) return dispatch;
  const allowedMethods = router.allowedMethods() as Middleware;
  return (ctx, next) => {
    const route = routes.get(ctx.method)?.get(ctx.path);
    const routed = ctx as RoutedContext;
    if (route === undefined || routed.matched !== undefined || routed.newRouterPath !== undefined || routed.routerPath !== undefined) {
      return dispatch(ctx, next);
    }
    const { layer } = route;
    routed.matched = [...route.matched];
    routed.router = router;
    routed.routeMatched = true;
    routed.captures = [];
    const params = {};
    (ctx.request as { params?: Record<string, string> }).params = params;
    ctx.params = params;
    routed.routerPath = layer.path;
    routed.routerName = layer.name || undefined;
    return route.handle(ctx, () => allowedMethods(ctx, next));
  };
}

/** The public fields @koa/router's dispatch sets on a context (RouterContext in its typings). */
type RoutedContext = Context & {
  matched?: Layer[];
  newRouterPath?: string;
  routerPath?: string | RegExp;
  router?: Router;
  routeMatched?: boolean;
  captures?: string[];
  routerName?: string;
};

function staticRoutes(router: Router): Map<string, Map<string, StaticRoute>> {
  const routes = new Map<string, Map<string, StaticRoute>>();
  const { declared } = router as Partial<DocumentedRouter>;
  const options = router.opts as { host?: unknown; routerPath?: unknown };
  if (!declared || options.host !== undefined || options.routerPath !== undefined) return routes;
  if (router.stack.some((layer) => layer.methods.length === 0)) return routes;
  for (const { layer, middleware } of declared) {
    if (layer.paramNames.length > 0 || typeof layer.path !== 'string') continue;
    // `/users/` (a prefixed router's "/" route) also serves `/users`; both are looked at.
    const paths = new Set([layer.path, layer.path.length > 1 ? layer.path.replace(/\/$/, '') : layer.path]);
    for (const path of paths) {
      // What the router's dispatch finds: the layers whose expression matches the path, of them
      // those of the method (or of any, router-level middleware: none here).
      const matched = router.stack.filter((each) => each.regexp.test(path));
      for (const method of layer.methods) {
        const forMethod = matched.filter((each) => each.methods.includes(method));
        if (forMethod.length !== 1 || forMethod[0] !== layer) continue;
        // The captures of a parameterless path are none.
        if ((layer.regexp.exec(path)?.length ?? 0) > 1) continue;
        let byPath = routes.get(method);
        if (!byPath) routes.set(method, (byPath = new Map()));
        byPath.set(path, { layer, matched, handle: compose(middleware as Middleware[]) });
      }
    }
  }
  return routes;
}

function routePaths(router: Router): string[] {
  return router.stack.map((layer) => String(layer.path));
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
