import type { Logger } from '../log.js';
import type { createHostingClient } from '../hosting/index.js';
import { ALL_NODES, type WatchService } from '../notify/index.js';

/**
 * Demo: the terminal watches every node, and every emulated node sends its webhooks to
 * this bot, set through the service API as an operator would (`node settings`).
 */
export async function wireDemo(hosting: ReturnType<typeof createHostingClient>, url: string, watches: WatchService, logger: Logger) {
  try {
    await watches.add({
      place: { platform: 'shell', channelId: 'terminal' },
      target: ALL_NODES,
      actor: { platform: 'shell', userId: 'local' },
    });
    for (const node of await hosting.listNodes()) {
      await hosting.updateSettings(node.nodeId, { webhookUrl: `${url}/webhooks/service/${node.nodeId}` });
    }
  } catch (err) {
    logger.warn({ err }, 'demo: could not wire the emulator webhooks to the bot');
  }
}
