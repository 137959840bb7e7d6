import { describe, expect, it } from 'vitest';
import { statusBadge, statusTone } from '../../src/vocabulary/format.js';
import { eventMessage } from '../../src/notify/render-notifications.js';
import { messageText as textOf } from '../support/reply-text.js';

describe('status names that are also Object.prototype names', () => {
  for (const status of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    it(`shows "${status}" as an unknown status with a neutral mark`, () => {
      expect(statusBadge(status)).toBe(`⚪ ${status}`);
      expect(statusTone(status)).toBe('neutral');
    });
  }

  it('renders an event whose status is "constructor" without "undefined"', () => {
    const m = eventMessage({
      nodeId: 'n1',
      nodeName: 'alice',
      eventType: 'NODE_STATUS_UPDATED',
      status: 'constructor',
      eventTs: '2026-01-01T00:00:00Z',
    });
    expect(textOf(m)).toContain('⚪ constructor');
    expect(textOf(m)).not.toContain('undefined');
    expect(m.tone).toBe('neutral');
  });
});

describe('the statuses of the service’s published description', () => {
  it('gives DESTROING (its spelling) and DESTROYED their own mark and tone, not the unknown one', () => {
    expect(statusBadge('DESTROING')).toBe('🗑️ DESTROING');
    expect(statusTone('DESTROING')).toBe('warning');
    expect(statusBadge('DESTROYED')).toBe('⚫ DESTROYED');
    expect(statusTone('DESTROYED')).toBe('danger');
  });
});
