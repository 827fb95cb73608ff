/**
 * The server's entry (`npm run dev`, `npm start`): the Node floor first, then the server itself
 * (server-main.ts), imported dynamically so an old Node prints one line instead of a link error.
 */
import { exitBelowNodeFloor } from './node-floor.js';

exitBelowNodeFloor();
await import('./server-main.js');
