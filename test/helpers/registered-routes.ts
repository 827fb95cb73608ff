import type Koa from 'koa';

export interface RegisteredRoute {
  method: string;
  /** OpenAPI spelling: `/v1/engines/{model}/translate`. */
  path: string;
}

/**
 * Every route registered on the app's routers, read from their stacks (each `router.routes()`
 * middleware carries its router). HEAD is left out: the router adds it to every GET.
 */
export function registeredRoutes(app: Koa): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: { stack: Array<{ path: string | RegExp; methods: string[] }> } }).router;
    for (const layer of router?.stack ?? []) {
      if (typeof layer.path !== 'string') continue;
      const path = layer.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
      for (const method of layer.methods) if (method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}
