/**
 * A dialog field is required unless it says `required: false`, on every platform alike, so a
 * password field can never be submitted empty on one platform and refused on another.
 */
import { describe, it, expect } from 'vitest';
import { dialogToModal as slackModal } from '../../src/chat/slack/index.js';
import { dialogToModal as discordModal } from '../../src/chat/discord/index.js';
import type { Dialog } from '../../src/engine/index.js';

const dialog: Dialog = {
  id: 'd_test',
  title: 'Unlock alice',
  submitLabel: 'Unlock',
  fields: [
    { name: 'password', label: 'Password', kind: 'secret' },
    { name: 'note', label: 'Note', kind: 'text', required: false },
  ],
};

describe('dialog fields: required by default', () => {
  it('Slack marks the unspecified field required and the explicit one optional', () => {
    const view = JSON.stringify(slackModal(dialog));
    const blocks = JSON.parse(view).blocks as Array<{ block_id: string; optional?: boolean }>;
    expect(blocks.find((b) => b.block_id === 'password')?.optional).toBe(false);
    expect(blocks.find((b) => b.block_id === 'note')?.optional).toBe(true);
  });

  it('Discord marks the unspecified field required and the explicit one optional', () => {
    const modal = discordModal(dialog);
    const inputs = modal.components.flatMap((c) => (c.type === 18 ? [c.component] : []));
    expect(inputs.find((i) => i.custom_id === 'password')?.required).toBe(true);
    expect(inputs.find((i) => i.custom_id === 'note')?.required).toBe(false);
  });
});
