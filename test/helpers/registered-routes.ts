import type Koa from 'koa';

export interface RegisteredRoute {
  method: string;
  /** OpenAPI spelling: `/v1/engines/{model}/translate`. */
  path: string;
}

interface RouterStack {
  stack: Array<{ path: string | RegExp; methods: string[] }>;
}

/**
 * Every route registered on the app's routers, read from their stacks. HEAD is left out: the
 * router adds it to every GET.
 */
export function registeredRoutes(app: Koa): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  for (const middleware of app.middleware) {
    // A router's routes() middleware carries `router`; the app's router tree carries `routers`.
    const { router, routers = router ? [router] : [] } = middleware as { router?: RouterStack; routers?: RouterStack[] };
    for (const layer of routers.flatMap((each) => each.stack)) {
      if (typeof layer.path !== 'string') continue;
      const path = layer.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
      for (const method of layer.methods) if (method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}
