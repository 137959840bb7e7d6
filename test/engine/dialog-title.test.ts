/**
 * A dialog's title is the core's to write and each platform's to fit: Slack allows 24 characters
 * in a modal title, Discord 45. The core does not cut it to Slack's size for everyone.
 */
import { describe, expect, it } from 'vitest';
import { testDispatcher } from '../support/dispatcher.js';
import { z } from 'zod';
import { defineCommand, type Reply } from '../../src/engine/types.js';
import { createRegistry } from '../../src/engine/registry.js';
import { openDatabase } from '../../src/store/index.js';
import { dialogToModal as slackModal } from '../../src/chat/slack/dialog-to-modal.js';
import { dialogToModal as discordModal } from '../../src/chat/discord/render.js';
import { fakeHosting, slackChannel, slackUser } from '../support/core.js';

describe('dialog titles', () => {
  it('keep their words in the core; Slack clips to its 24 characters, Discord shows them whole', async () => {
    const def = defineCommand({
      path: 'node rotate-all-credentials',
      summary: 'Rotate every credential of a node',
      example: '/rln node rotate-all-credentials alice',
      args: z.object({ node: z.string() }),
      role: 'admin',
      confirm: 'none',
      secrets: [{ name: 'password', label: 'Node password', kind: 'secret' }],
      mutates: true,
      handler: async () => ({ blocks: [] }),
    });
    const dispatcher = testDispatcher({
      db: openDatabase(':memory:'),
      registry: createRegistry([def]),
      services: { hosting: fakeHosting() as any, nodeApi: () => ({}) as any },
      admins: ['slack:UADMIN'],
    });
    const r = await dispatcher.dispatch({
      via: 'typed',
      actor: slackUser('UADMIN'),
      place: slackChannel,
      text: 'node rotate-all-credentials alice',
    });
    expect(r.kind).toBe('dialog');
    const dialog = (r as Extract<Reply, { kind: 'dialog' }>).dialog;
    expect(dialog.title).toBe('Node rotate-all-credentials');
    expect(discordModal(dialog).title).toBe('Node rotate-all-credentials');
    const slackTitle = (slackModal(dialog) as { title: { text: string } }).title.text;
    expect(slackTitle.length).toBeLessThanOrEqual(24);
    expect(slackTitle.endsWith('…')).toBe(true);
  });
});
