/** What Bolt and the socket-mode client log at debug level is scrubbed of typed values. */
import { describe, expect, it } from 'vitest';
import { scrubBoltLog } from '../../../src/chat/slack/to-bolt-logger.js';

describe('scrubBoltLog', () => {
  it('hides a modal input value in a raw WebSocket payload', () => {
    const line = `Received a message on the WebSocket: ${JSON.stringify({ payload: { view: { state: { values: { pw: { pw: { type: 'plain_text_input', value: 'hunter2 "quoted"' } } } } } } })}`;
    const out = scrubBoltLog(line);
    expect(out).not.toContain('hunter2');
    expect(out).toContain('plain_text_input');
  });

  it('hides the text of a slash command and key=value secrets', () => {
    expect(scrubBoltLog(JSON.stringify({ command: '/rln', text: 'node unlock alice password=s3cret' }))).not.toContain('s3cret');
    expect(scrubBoltLog('text was node unlock password=s3cret now')).not.toContain('s3cret');
  });

  it('hides values inside JSON that was itself put in a string', () => {
    const inner = JSON.stringify({ value: 'hunter2' });
    expect(scrubBoltLog(JSON.stringify({ payload: inner }))).not.toContain('hunter2');
  });
});
