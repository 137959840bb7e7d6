/**
 * Every command, once. Slack parsing, Discord registration, help and autocomplete are
 * derived from this list (src/engine/registry.ts refuses two commands with one path).
 * Its order is the order help lists them: the groups in the order they first appear here,
 * each group's actions in the order its own list gives them. The engine keeps no list of its
 * own, so a new command is one change here (docs/ARCHITECTURE.md, "Adding a command").
 */
import type { AnyCommand } from '../src/engine/index.js';
import { nodeCommands } from './node.js';
import { nodeCertCommands } from './node-cert.js';
import { walletCommands } from './wallet.js';
import { assetCommands } from './asset.js';
import { assetOutOfBandCommands } from './asset-out-of-band.js';
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

export type { Services } from './services.js';
export { defineCommand, type CommandContext } from './define-command.js';

export const allCommands: AnyCommand[] = [
  ...nodeCommands,
  ...nodeCertCommands,
  ...walletCommands,
  ...assetCommands,
  ...assetOutOfBandCommands,
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
