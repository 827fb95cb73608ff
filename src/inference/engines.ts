/**
 * Engine table: manifest `engine` name → how to load it. Adding an engine is one line here
 * and one module under src/inference/<task>/.
 */
import type { Engine } from './engine.js';

export const ENGINES: Readonly<Record<string, Engine>> = Object.freeze({});
