/**
 * The message of an upgrade wave (render-notifications.ts's activityMessage over the follower's items):
 * every node listed, each with its own Unlock button, within the platforms' limit of buttons per message.
 */
import { describe, expect, it } from 'vitest';
import { activityMessage, MAX_BUTTONS_PER_MESSAGE, UPGRADED_EVENT } from '../../src/notify/render-notifications.js';
import { upgradedMessage } from '../../src/activity/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { messageText } from '../support/reply-text.js';

const node = (i: number): HostedNode => ({
  nodeId: `id-${i}`,
  name: `n${String(i).padStart(2, '0')}`,
  network: 'regtest',
  status: 'RUNNING',
  imageVersion: 'v0.3.0',
});

describe('an upgrade wave in one message', () => {
  it('lists every locked node, each with its own Unlock button', () => {
    const items = [1, 2, 3].map((i) => upgradedMessage(node(i), 'locked'));
    const m = activityMessage(
      items,
      items.map(() => UPGRADED_EVENT),
    );
    expect(m.header).toBe('3 nodes upgraded, every one LOCKED');
    expect(m.buttons?.map((b) => b.label)).toEqual(['Unlock n01', 'Unlock n02', 'Unlock n03']);
    expect(m.buttons?.map((b) => b.args?.node)).toEqual(['id-1', 'id-2', 'id-3']);
    expect(messageText(m)).toContain('n02 upgraded to v0.3.0 and is LOCKED');
  });

  it('keeps to the buttons a message may hold, naming the rest with the command to type', () => {
    const items = Array.from({ length: 30 }, (_, i) => upgradedMessage(node(i + 1), 'locked'));
    const m = activityMessage(
      items,
      items.map(() => UPGRADED_EVENT),
    );
    expect(m.buttons).toHaveLength(MAX_BUTTONS_PER_MESSAGE);
    expect(MAX_BUTTONS_PER_MESSAGE).toBeLessThanOrEqual(25);
    const text = messageText(m);
    expect(text).toContain('n30 upgraded to v0.3.0 and is LOCKED');
    expect(text).toContain('5 more buttons than a message holds');
    expect(text).toContain('`node unlock id-30`');
  });

  it('says how a node answered when it did not come back locked, with no Unlock button', () => {
    const m = upgradedMessage(node(1), 'unlocked');
    expect(m.header).toBe('n01 upgraded to v0.3.0');
    expect(m.buttons).toBeUndefined();
  });
});
