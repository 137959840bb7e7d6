/** `policy set|list|limits` and the configured audit reader, through the dispatcher with every real command. */
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../src/engine/types.js';
import { parse } from 'csv-parse/sync';
import { createRegistry } from '../../src/engine/index.js';
import { fileBytes } from '../../src/vocabulary/index.js';
import { allCommands } from '../../commands/index.js';
import { messageText } from '../support/reply-text.js';
import { testDispatcher } from '../support/dispatcher.js';
import { slackChannel, slackUser } from '../support/core.js';

const admin = slackUser('UADMIN');
const ops = slackUser('UOPS');
const reader = slackUser('UREAD');
const text = (r: Reply) => (r.kind === 'message' ? messageText(r.message) : JSON.stringify(r));

function bot(o: { spendLimits?: string; readers?: string[] } = {}) {
  const d = testDispatcher({
    registry: createRegistry(allCommands, { roleOverrides: { audit: 'admin' } }),
    admins: ['slack:UADMIN'],
    operators: ['slack:UOPS'],
    approvalPolicy: 'node.destroy',
    ...o,
  });
  return (actor: typeof admin, line: string) => d.dispatch({ via: 'typed', actor, place: slackChannel, text: line });
}

describe('policy commands', () => {
  it('set changes the approval policy at run time, list shows it, and the change is audited', async () => {
    const run = bot();
    expect(text(await run(admin, '/rln policy set approval pay.send amount="100k sats"'))).toContain(
      'pay.send above 100,000 sats now needs a second person',
    );
    const list = text(await run(reader, '/rln policy list'));
    expect(list).toContain('node.destroy | always | APPROVAL_POLICY');
    expect(list).toContain('pay.send | 100,000 sats | policy set (slack:UADMIN)');
    expect(text(await run(admin, '/rln audit action=policy.set'))).toContain('policy set');
  });

  it('set reads an amount typed as two words unquoted, in the one amount grammar, keeping thresholds in sats or display units', async () => {
    const run = bot();
    expect(text(await run(admin, '/rln policy set approval pay.send amount=100k sats'))).toContain(
      'pay.send above 100,000 sats now needs a second person',
    );
    expect(text(await run(admin, '/rln policy set approval asset.send amount=1,000.5 USDT'))).toContain(
      'asset.send above 1,000.5 USDT now needs a second person',
    );
    expect(text(await run(admin, '/rln policy set limit operate amount=0.5 BTC'))).toContain(
      'operate may spend at most 50,000,000 sats a day',
    );
    const list = text(await run(reader, '/rln policy list'));
    expect(list).toContain('pay.send | 100,000 sats');
    expect(list).toContain('asset.send | 1,000.5 USDT');
  });

  it('refuses a rule for a command whose dialog takes a secret, a bare number, and a non-admin', async () => {
    const run = bot();
    expect(text(await run(admin, '/rln policy set approval node.unlock'))).toContain('its dialog takes a secret');
    expect(text(await run(admin, '/rln policy set approval pay.send amount=5000'))).toContain('has no unit');
    expect(text(await run(ops, '/rln policy set approval node.stop'))).toContain('needs the admin role');
  });

  it('limits shows each limit, today’s use and when it resets; an admin sets one for a role alias', async () => {
    const run = bot({ spendLimits: 'operate = 500k sats' });
    expect(text(await run(admin, '/rln policy set limit operator amount="20 USDT"'))).toContain('operate may spend at most 20 USDT a day');
    const mine = text(await run(ops, '/rln policy limits'));
    expect(mine).toContain('sat | 500,000 sats | 0 sats | 500,000 sats | the operate role');
    expect(mine).toContain('USDT | 20 USDT');
    expect(mine).toContain('Limits reset at 00:00 UTC');
    expect(text(await run(ops, '/rln policy limits slack:UADMIN'))).toContain("Only admins see someone else's limits");
  });

  it('keeps the audit trail to admins by default (AUDIT_READ_ROLE), and reading to READ_USERS when set', async () => {
    const run = bot({ readers: ['slack:UREAD'] });
    expect(text(await run(ops, '/rln audit'))).toContain('`audit` needs the admin role');
    expect(text(await run(admin, '/rln audit'))).toContain('Audit trail');
    expect(text(await run(reader, '/rln policy list'))).toContain('Policy');
    expect(text(await run(slackUser('USTRANGER'), '/rln policy list'))).toContain('needs the read role');
    // A wrong choice is said in one sentence, the choices named once (P25).
    const bad = text(await run(admin, '/rln audit outcome=bad'));
    expect(bad.split('ok, failed, refused').length - 1, bad).toBe(1);
    // Help shows the role the check asks (the registry's, with AUDIT_READ_ROLE over audit's own).
    for (const line of ['/rln audit help', '/rln help audit']) {
      const help = text(await run(reader, line));
      expect(help, line).toMatch(/Role\W+admin/);
      expect(help, line).not.toMatch(/Role\W+read/);
    }
  });

  it('exports the filtered audit trail as a dated CSV file, formula-safe, with a summary of the rows and filters', async () => {
    const run = bot();
    // A display name is chosen by the user: one that looks like a formula must not run in a spreadsheet.
    await run({ ...admin, displayName: '=HYPERLINK("x")' }, '/rln policy set approval node.stop');
    await run(ops, '/rln node list');
    const r = await run(admin, '/rln audit csv=true action=policy.set');
    if (r.kind !== 'message') throw new Error(`not a message: ${JSON.stringify(r)}`);
    expect(text(r)).toContain('1 row, oldest first');
    expect(text(r)).toContain('filters: action=policy.set');
    expect(text(r)).not.toContain('time_utc');
    const [file] = r.message.files ?? [];
    expect(file.name).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(file.mime).toBe('text/csv');
    const rows: Array<Record<string, string>> = parse(fileBytes(file).toString('utf8'), { columns: true });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      user: 'slack:UADMIN',
      user_name: '\'=HYPERLINK("x")',
      action: 'policy.set',
      arguments: 'kind=approval subject=node.stop',
      outcome: 'ok',
      where: 'slack:C1',
    });
  });
});
