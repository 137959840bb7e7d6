/**
 * `node cert`: the bot asks the service's `generate-cert` for a client certificate for a node's API
 * and keeps it for its own calls to that node (issue 25, item 6). The private key goes straight
 * into the bot's credential store, sealed (src/node-api/service-certs.ts): no reply, log line or
 * audit row holds it. An entry for the node in NODE_CREDENTIALS_FILE wins, so the command refuses
 * to fetch a certificate that would not be used. `remove=true` forgets the kept certificate: the bot's
 * calls to the node go back to no client certificate (NODE_API_TOKEN alone).
 */
import { z } from 'zod';
import { msg } from '../src/vocabulary/index.js';
import { actorKey } from '../src/access/index.js';
import { defineCommand } from './define-command.js';
import type { AnyCommand } from '../src/engine/index.js';
import { flag, nodeArg } from './support/arg-types.js';
import { titled } from './support/present.js';
import { requireNode } from './support/require-node.js';

const cert = defineCommand({
  path: 'node cert',
  summary: "Fetch a client certificate for a node's API from the service; the bot presents it calling that node",
  example: '/rln node cert alice',
  args: z.object({
    node: nodeArg(),
    remove: flag().default(false).describe('Forget the kept certificate instead: calls to the node go back to no client certificate'),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  async check(ctx) {
    const node = requireNode(ctx);
    if (ctx.args.remove) {
      if (await ctx.services.nodeCerts.kept(node.nodeId)) return undefined;
      return {
        reason: `The bot keeps no client certificate for ${node.name}: nothing to remove.`,
        next: ctx.services.nodeCerts.inFile(node)
          ? `${node.name}'s credentials come from its entry in NODE_CREDENTIALS_FILE: edit that file and restart the bot.`
          : `Fetch one with \`node cert ${node.name}\`.`,
      };
    }
    if (ctx.services.nodeCerts.inFile(node)) {
      return {
        reason: `${node.name} has an entry in NODE_CREDENTIALS_FILE, which wins over a certificate fetched from the service: nothing was fetched.`,
        next: `Put the certificate in that entry, or remove the entry and restart the bot, then run \`node cert ${node.name}\`.`,
      };
    }
    if (!ctx.services.nodeCerts.canKeep) {
      return {
        reason: 'The bot has no CREDENTIALS_KEY to keep a private key encrypted: nothing was fetched.',
        next: 'Set CREDENTIALS_KEY to 32 random bytes (openssl rand -base64 32), restart the bot, and run the command again.',
      };
    }
    return undefined;
  },
  async preview(ctx) {
    const node = requireNode(ctx);
    const kept = await ctx.services.nodeCerts.kept(node.nodeId);
    if (ctx.args.remove)
      return [
        {
          label: 'What happens',
          value: `The bot forgets this certificate and its key. Its calls to ${node.name}'s API present no client certificate from then on (NODE_API_TOKEN alone, when set): an API that requires one will refuse them.`,
        },
        { label: 'Removes', value: kept ? [{ code: kept.fingerprint }] : 'none' },
      ];
    return [
      {
        label: 'What happens',
        value: `The service makes a new key and client certificate for ${node.name}'s API. The bot keeps them, the key encrypted in its database, never shown, and presents the certificate on its calls to ${node.name}.`,
      },
      { label: 'Kept now', value: kept ? [{ code: kept.fingerprint }, ` (replaced by the new one)`] : 'none' },
    ];
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    if (ctx.args.remove) {
      const gone = await ctx.services.nodeCerts.forget(node.nodeId);
      return {
        header: titled(gone ? 'Client certificate removed' : 'No client certificate kept', node),
        tone: gone ? 'success' : 'neutral',
        summary: `${node.name}: client certificate ${gone ? 'removed' : 'not kept'}`,
        blocks: [
          msg.text(
            `The bot's calls to ${node.name}'s API present no client certificate from now on (other replicas of the bot within 30 s).`,
          ),
          ...(gone ? [msg.fields([{ label: 'Removed', value: [{ code: gone.fingerprint }] }])] : []),
        ],
      };
    }
    const facts = await ctx.services.nodeCerts.fetchAndKeep(node, actorKey(ctx.actor));
    const plain = node.invoke_url?.startsWith('http://');
    return {
      header: titled('Client certificate kept', node),
      tone: 'success',
      summary: `${node.name}: client certificate ${facts.fingerprint.slice(0, 23)}… kept`,
      blocks: [
        msg.text(
          `The bot now presents this certificate on its calls to ${node.name}'s API. Its private key went straight into the bot's credential store, encrypted; it is never shown.`,
        ),
        msg.fields([
          { label: 'Subject', value: facts.subject, inline: true },
          { label: 'Issuer', value: facts.issuer, inline: true },
          { label: 'Valid until', value: facts.validTo, inline: true },
          { label: 'SHA-256', value: [{ code: facts.fingerprint }] },
          ...(facts.replaced ? [{ label: 'Replaces', value: [{ code: facts.replaced }] }] : []),
        ]),
        ...(plain
          ? [msg.context(`${node.name}'s API address is plain HTTP (loopback): the certificate is presented over HTTPS only.`)]
          : []),
      ],
    };
  },
});

export const nodeCertCommands: AnyCommand[] = [cert];
