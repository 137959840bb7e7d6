/** A status notification's time reads as the incidents' do, "… UTC", not an ISO string (issue 26, P24). */
import { describe, expect, it } from 'vitest';
import { eventMessage } from '../../src/notify/render-notifications.js';
import { messageText as textOf } from '../support/reply-text.js';

describe('event times', () => {
  for (const eventType of ['NODE_STATUS_UPDATED', 'SOMETHING_ELSE']) {
    it(`shows ${eventType}'s time as "… UTC"`, () => {
      const t = textOf(
        eventMessage({ nodeId: 'n1', nodeName: 'alice', eventType, status: 'RUNNING', eventTs: '2026-11-27T01:25:43.692Z' }),
      );
      expect(t).toContain('2026-11-27 01:25 UTC');
      expect(t).not.toContain('T01:25:43');
    });
  }
});
