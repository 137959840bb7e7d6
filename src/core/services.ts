/**
 * What handlers may use. Each room adds its own service by declaration merging, next to
 * the code that implements it, e.g. in src/notify/watch-service.ts:
 *
 *   declare module '../core/services.js' { interface Services { watches: WatchService } }
 *
 * so core never imports a room's implementation, and the composition root (src/app.ts)
 * is where the concrete services are put together.
 */
import type { HostingClient, HostedNode } from '../hosting/index.js';
import type { NodeApiClient } from '../node-api/index.js';
import type { ProgressReporter } from './chat.js';

export interface Services {
  hosting: HostingClient;
  /** A node API client for this node, with its configured credentials. */
  nodeApi(node: HostedNode): NodeApiClient;
  /** `PUBLIC_URL`, when set: the HTTPS base at which the service reaches the bot. */
  publicUrl?: string;
  now(): Date;
  /** Progress messages edited in place (set by the composition root once posters exist). */
  progress?: ProgressReporter;
}
