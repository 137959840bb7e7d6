/**
 * What handlers may use: the engine's own (EngineServices, src/engine/types.ts) and the features
 * the commands call. Built once, complete, by the composition root (src/app/create-app.ts).
 * The engine never imports this type: it is generic over the services it is given.
 */
import type { HostedNode } from '../src/hosting/index.js';
import type { NodeApiClient, ServiceCerts } from '../src/node-api/index.js';
import type { WatchService } from '../src/notify/index.js';
import type { ReportService } from '../src/reports/index.js';
import type { CallScheduler } from '../src/node-api/index.js';
import type { EngineServices } from '../src/engine/index.js';
import type { ProgressReporter } from '../src/vocabulary/index.js';

export interface Services extends EngineServices {
  /** A node API client for this node, with its configured credentials. */
  nodeApi(node: HostedNode): NodeApiClient;
  /**
   * Client certificates fetched through the service and kept for the bot's own calls (`node cert`);
   * `inFile`: NODE_CREDENTIALS_FILE has an entry for the node, which wins over them.
   */
  nodeCerts: ServiceCerts & { inFile(node: HostedNode): boolean };
  /** `PUBLIC_URL`, when set: the HTTPS base at which the service reaches the bot. */
  /** The most of a node's log file `node logs` downloads (LOG_DOWNLOAD_MAX_BYTES); its end is kept. */
  logDownloadMaxBytes?: number;
  publicUrl?: string;
  /** UNLOCK_INDEXER_URL: the indexer `node unlock` offers for a 6887cbf node (the demo: the emulator's). */
  unlockIndexerUrl?: string;
  /** Watches, mutes and incident acknowledgements; the `watch` commands. */
  watches: WatchService;
  /** Reports and their schedules; the `report` commands. */
  reports: ReportService;
  /** The process's one scheduler of node work (bounded overall and per node, adaptive); commands/support/node-calls.ts has a default. */
  nodeCalls?: CallScheduler;
  /** Progress messages edited in place (a message the command posts, then updates). */
  progress: ProgressReporter;
}
