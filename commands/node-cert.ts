/**
 * `node cert`: the bot asks the service's `generate-cert` for a client certificate for a node's API
 * and keeps it for its own calls to that node (issue 25, item 6). The private key goes straight
 * into the bot's credential store, sealed (src/node-api/service-certs.ts): no reply, log line or
 * audit row holds it. An entry for the node in NODE_CREDENTIALS_FILE wins, so the command refuses
 * to fetch a certificate that would not be used.
 */
import { msg } from '../src/vocabulary/index.js';
import { actorKey } from '../src/access/index.js';
import { defineCommand } from './define-command.js';
import type { AnyCommand } from '../src/engine/index.js';
import { nodeOnly } from './support/arg-types.js';
import { titled } from './support/present.js';
import { requireNode } from './support/require-node.js';

const cert = defineCommand({
  path: 'node cert',
  summary: "Fetch a client certificate for a node's API from the service; the bot presents it calling that node",
  example: '/rln node cert alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'button',
  mutates: true,
  async check(ctx) {
    const node = requireNode(ctx);
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
