/**
 * `node init`: a node's wallet, new (the mnemonic is shown once, privately) or restored from an existing
 * mnemonic (`recover=true`, RLN 206f330 and later). The existing mnemonic is a secret: it is typed only in
 * the private dialog, sent once to the node, and never shown, stored, logged or audited.
 */
import { z } from 'zod';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import type { Reply } from '../src/engine/index.js';
import { flag, nodeArg } from './support/arg-types.js';
import { needsCapability, requireCapability, type NeedsCapability } from './support/needs-capability.js';
import { nodeClient } from './support/node-client.js';
import { MIN_PASSWORD, mnemonicError, needSecret, newPasswordErrors, normalMnemonic, passwordField } from './support/node-secrets.js';
import { requireWallet } from './support/node-state.js';
import { titled } from './support/present.js';
import { requireNode } from './support/require-node.js';

/**
 * `/init` takes a `mnemonic` from RLN 206f330 (2026-03-09) on. No endpoint tells that alone; `/sync`'s
 * `options` (bf0a18e, 2026-04-27) came after it, so a node that takes them takes a mnemonic too.
 */
const RECOVER: NeedsCapability = { command: 'node init … recover=true', feature: 'a wallet restored from an existing mnemonic' };

export const init = defineCommand({
  path: 'node init',
  summary: "Initialize a node's wallet: new (its mnemonic shown once, privately), or from an existing mnemonic",
  example: '/rln node init alice',
  args: z.object({
    node: nodeArg(),
    recover: flag()
      .default(false)
      .describe('Restore the wallet from an existing mnemonic: the private dialog asks for its words (6887cbf images)'),
  }),
  role: 'admin',
  confirm: 'none',
  secrets: [
    {
      ...passwordField,
      label: 'New node password',
      hint: `At least ${MIN_PASSWORD} characters. Needed to unlock, back up and restore.`,
      minLength: MIN_PASSWORD,
    },
    {
      name: 'password_repeat',
      label: 'Repeat the new password',
      kind: 'secret',
      required: true,
      hint: 'A typo here would lock you out of the node.',
    },
    {
      name: 'mnemonic',
      label: 'Existing mnemonic (12 or 24 words)',
      kind: 'secret',
      required: true,
      onlyWithArg: 'recover',
      hint: 'The words, separated by spaces. Sent once to the node; never shown, stored or logged by the bot.',
    },
  ],
  dialog: {
    check: (values) => {
      const errors = newPasswordErrors(values, 'password', 'password_repeat');
      const words = mnemonicError(values.mnemonic);
      return words ? { ...errors, mnemonic: words } : errors;
    },
  },
  async check(ctx) {
    const refused = await requireWallet(ctx, requireNode(ctx), 'uninitialised', 'initialize');
    if (refused || !ctx.args.recover) return refused;
    return needsCapability(ctx, 'sync', RECOVER);
  },
  mutates: true,
  async handler(ctx): Promise<Reply> {
    const { node, api } = nodeClient(ctx);
    const password = needSecret(ctx, 'password', 'password');
    if (ctx.args.recover) {
      await requireCapability(ctx, 'sync', RECOVER);
      const words = normalMnemonic(needSecret(ctx, 'mnemonic', 'mnemonic'));
      // The node answers the words back: they are not shown again (the person has them).
      await api.init({ password, mnemonic: words });
      return {
        kind: 'message',
        visibility: 'private',
        message: {
          header: titled('Node initialized from your mnemonic', node),
          tone: 'success',
          summary: `${node.name} initialized from an existing mnemonic`,
          blocks: [
            msg.text('The wallet was restored from the words you typed. They were sent once to the node and are not kept by the bot.'),
            msg.context(
              `Next: \`node unlock ${node.name}\`; then \`wallet balance ${node.name}\` and \`asset refresh ${node.name}\` to see what it holds.`,
            ),
          ],
          buttons: [{ label: 'Unlock', style: 'primary', command: 'node unlock', args: { node: node.name } }],
        },
      };
    }
    const { mnemonic } = await api.init({ password });
    return {
      kind: 'message',
      visibility: 'private',
      message: {
        header: titled('Node initialized', node),
        tone: 'warning',
        summary: `${node.name} initialized`,
        blocks: [
          msg.text([{ bold: 'Write these words down now, offline. They are shown only this once and are never stored by the bot.' }]),
          msg.code(mnemonic),
          msg.context('Anyone with these words controls the funds. Do not paste them in a channel.'),
          msg.context(`Next: \`node unlock ${node.name}\`.`),
        ],
        buttons: [{ label: 'Unlock', style: 'primary', command: 'node unlock', args: { node: node.name } }],
      },
    };
  },
});
