/**
 * `defineCommand` and `CommandContext` for this project's commands: the engine's, bound to the
 * concrete Services (./services.ts), so a handler sees `services.watches` and the like.
 */
import { commandDefiner, type CommandContext as EngineCommandContext } from '../src/engine/index.js';
import type { Services } from './services.js';

export const defineCommand = commandDefiner<Services>();

export type CommandContext<A> = EngineCommandContext<A, Services>;
