/**
 * The real app (createTestApp) listening on an ephemeral loopback port, for the client's tests:
 * the client speaks fetch, so it needs a real socket, not supertest's callback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InferenceClient, type InferenceClientOptions } from '../../src/client/index.js';
import { createTestApp, TEST_API_KEY, type TestApp, type TestAppOptions } from '../helpers/test-app.js';

export interface ServedApp {
  app: TestApp;
  baseUrl: string;
  /** A client of this server with the test key; options override. */
  client(options?: Partial<InferenceClientOptions>): InferenceClient;
  close(): Promise<void>;
}

export async function serveTestApp(options: TestAppOptions = {}): Promise<ServedApp> {
  const app = await createTestApp(options);
  const server: Server = createServer(app.app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    app,
    baseUrl,
    client: (overrides = {}) => new InferenceClient({ baseUrl, apiKey: TEST_API_KEY, ...overrides }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}
