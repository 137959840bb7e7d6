/**
 * Every command, once. Slack parsing, Discord registration, help and autocomplete are
 * derived from this list (src/core/registry.ts refuses two commands with one path).
 */
import type { AnyCommand } from '../src/core/index.js';
import { nodeCommands } from './node.js';
import { walletCommands } from './wallet.js';
import { assetCommands } from './asset.js';
import { invoiceCommands } from './invoice.js';
import { payCommands } from './pay.js';
import { channelCommands } from './channel.js';
import { peerCommands } from './peer.js';
import { netCommands } from './net.js';
import { swapCommands } from './swap.js';
import { watchCommands } from './watch.js';
import { reportCommands } from './report.js';
import { accessCommands } from './access.js';
import { policyCommands } from './policy.js';
import { metaCommands } from './meta.js';
import { statusCommands } from './status.js';

export const allCommands: AnyCommand[] = [
  ...nodeCommands,
  ...walletCommands,
  ...assetCommands,
  ...invoiceCommands,
  ...payCommands,
  ...channelCommands,
  ...peerCommands,
  ...netCommands,
  ...swapCommands,
  ...watchCommands,
  ...reportCommands,
  ...accessCommands,
  ...policyCommands,
  ...metaCommands,
  ...statusCommands,
];
