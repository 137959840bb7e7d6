import { describe, expect, it } from 'vitest';
import { harness, slackChannel, slackUser } from '../support/core.js';
import { replyText } from '../support/reply-text.js';
import type { Invocation } from '../../src/engine/types.js';

const typed = (text: string): Invocation => ({ via: 'typed', actor: slackUser('UREAD'), place: slackChannel, text });

describe('unknown command text', () => {
  it('never echoes or logs a password pasted as the whole /rln text', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed('/rln Hunter2-Pasted-Password'));
    expect(replyText(r)).toContain('There is no command like that');
    expect(replyText(r)).toContain('/rln help');
    expect(replyText(r)).not.toContain('Hunter2');
    expect(h.log.text).toContain('unknown_command');
    expect(h.log.text).not.toContain('Hunter2');
  });

  it('does not echo an unknown action of a known group, and lists the group’s actions from the registry', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed('/rln node S3cret-Pass-Word'));
    expect(replyText(r)).toContain('`node` has no such action');
    expect(replyText(r)).toContain('info');
    expect(replyText(r)).not.toContain('S3cret');
    expect(h.log.text).not.toContain('S3cret');
  });

  it('still suggests the closest command from the registry', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed('/rln node stp alice'));
    expect(replyText(r)).toContain('/rln node stop');
  });

  it('does not echo an unknown group asked for help', async () => {
    const h = harness();
    const r = await h.dispatcher.dispatch(typed('/rln help Hunter2-Pasted-Password'));
    expect(replyText(r)).not.toContain('Hunter2');
    expect(h.log.text).not.toContain('Hunter2');
  });
});
