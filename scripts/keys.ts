/**
 * `npm run keys`: the Node floor first, then the command (keys-command.ts), imported dynamically
 * so an old Node prints one line instead of a link error (src/node-floor.ts).
 */
import { exitBelowNodeFloor } from '../src/node-floor.js';

exitBelowNodeFloor();
await import('./keys-command.js');
