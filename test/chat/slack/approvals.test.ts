/**
 * Four eyes on money and destruction, end to end over Slack's signed HTTP requests: the whole bot
 * (src/app/create-app.ts) against the emulator, a payment above the approval threshold waits for a second
 * admin, the requester cannot approve their own, a double click pays once, an expired request
 * cannot be approved, a send over the daily limit is refused with what is left, a rejection closes
 * the request with its reason, and node destroy's backup waits for the approval (nothing locked
 * on a Reject or an expiry), its password asked of the requester then and never carried by a message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startHarness, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type RespondCall } from '../../fakes/slack/index.js';

const SIGNING_SECRET = 'approvals-signing-secret-0123';
const PASSWORD = 'approvals-node-password-77';
const ADA = { id: 'UADA', name: 'ada' };
const BEA = { id: 'UBEA', name: 'bea' };
const CY = { id: 'UCY', name: 'cy' };
const OTTO = { id: 'UOTTO', name: 'otto' };

const textOf = (r: { body: unknown }) => JSON.stringify(r.body);
function buttons(body: Record<string, any>): Array<{ id: string; label: string }> {
  const blocks = [...(body.blocks ?? []), ...(body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
  return blocks
    .filter((b: any) => b.type === 'actions')
    .flatMap((b: any) => b.elements.map((e: any) => ({ id: e.action_id, label: e.text.text })));
}
const button = (body: Record<string, any>, label: string) => {
  const b = buttons(body).find((x) => x.label === label);
  if (!b) throw new Error(`no ${label} button in ${JSON.stringify(body).slice(0, 300)}`);
  return b.id;
};

describe('approvals and spend limits on Slack', () => {
  let fake: FakeSlack;
  let h: Harness;
  let slack: SlackDriver;
  /** How far the bot's clock is ahead of the real one. */
  let ahead = 0;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startHarness({
      emulator: { seed: 'demo', lifecycleDelayMs: 30, demoPassword: PASSWORD },
      now: () => Date.now() + ahead,
      env: {
        SLACK_BOT_TOKEN: 'xoxb-approvals-bot-token',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        ADMIN_USERS: `slack:${ADA.id},slack:${BEA.id},slack:${CY.id}`,
        OPERATOR_USERS: `slack:${OTTO.id}`,
        APPROVAL_POLICY: 'node.destroy; pay.send > 1000 sats',
        // cy opens the setup channel: a channel open counts against limits, and cy's own is larger.
        SPEND_LIMITS: `admin = 20k sats; slack:${CY.id} = 10M sats`,
      },
    });
    slack = createSlackDriver(fake, 'http', { eventsUrl: `${h.url}/slack/events`, signingSecret: SIGNING_SECRET });
    // A channel alice -> bob to pay over (setup, not under test: channel opens are not in this policy).
    const prompt = await ask(CY, 'channel open alice bob 1M sats');
    const open = await click(CY, button(prompt.body, 'Confirm'));
    expect(textOf(open)).toContain('Channel opening');
    h.emulator.world.mine(6);
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  const ask = (user: { id: string; name: string }, text: string): Promise<RespondCall> => slack.ask(user, text);
  const click = (user: { id: string; name: string }, id: string): Promise<RespondCall> => slack.press(user, id);
  /** An `audit … csv=true` answer and the CSV file uploaded with it, its rows parsed. */
  async function auditCsv(user: { id: string; name: string }, text: string) {
    const before = fake.uploads.length;
    const answer = await ask(user, text);
    const [file] = await waitFor(
      () => {
        const done = fake.uploads.slice(before).filter((u) => u.completed && /^audit-\d{4}-\d{2}-\d{2}\.csv$/.test(u.filename));
        return done.length > 0 && done;
      },
      { timeout: 10_000, what: 'the audit CSV upload' },
    );
    const csv = file.bytes!.toString('utf8');
    const rows: Array<Record<string, string>> = parse(csv, { columns: true });
    return { answer, file, csv, rows };
  }
  const payments = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/sendpayment')).length;

  /** An invoice of bob's for `sats`, paid by alice as far as the approval request. */
  async function requestPayment(sats: number): Promise<RespondCall> {
    const inv = await ask(ADA, `invoice ln bob amt_msat=${sats * 1000}`);
    const invoice = /(lnbcrt[0-9a-z]+)/.exec(textOf(inv))![1];
    const prompt = await ask(ADA, `pay send alice ${invoice}`);
    // Over the day's limit it is refused before any confirmation: that refusal is the answer.
    if (!buttons(prompt.body).some((b) => b.label === 'Confirm')) return prompt;
    return click(ADA, button(prompt.body, 'Confirm'));
  }

  it('does not pay above the threshold until a second admin approves; the requester and an operator cannot approve it', async () => {
    const before = payments();
    const request = await requestPayment(5000);
    expect(request.body.replace_original).toBe(true);
    const said = textOf(request);
    expect(said).toContain('Approval needed: pay send alice');
    expect(said).toContain('5,000 sats');
    expect(said).toContain('slack:UADA');
    expect(said).toContain('Expires');
    expect(payments()).toBe(before);

    const own = await click(ADA, button(request.body, 'Approve'));
    expect(own.body.response_type).toBe('ephemeral');
    expect(textOf(own)).toContain('someone else must approve it');
    const operator = await click(OTTO, button(request.body, 'Approve'));
    expect(operator.body.response_type).toBe('ephemeral');
    expect(textOf(operator)).toContain('needs the admin role');
    expect(payments()).toBe(before);

    const approved = await click(BEA, button(request.body, 'Approve'));
    expect(approved.body.replace_original).toBe(true);
    expect(textOf(approved)).toContain('Payment sent');
    expect(textOf(approved)).toContain('approved by bea (slack:UBEA)');
    expect(textOf(approved)).toContain('Requested by ada (slack:UADA)');
    expect(payments()).toBe(before + 1);

    const audit = await auditCsv(ADA, 'audit action=pay.send outcome=ok csv=true');
    expect(audit.file.bytes!.length).toBe(audit.file.length);
    expect(audit.rows.length).toBeGreaterThan(0);
    expect(audit.rows.map((r) => [r.action, r.outcome])).toEqual([
      ['approval.request', 'ok'],
      ['approval.approve', 'ok'],
      ['pay.send', 'ok'],
    ]);
    expect(audit.rows.some((r) => r.node === 'alice' && r.arguments.includes('approved_by=slack:UBEA'))).toBe(true);
    expect(textOf(audit.answer)).toContain(`${audit.rows.length} row`);
    expect(textOf(audit.answer)).toContain('filters: action=pay.send outcome=ok');
    expect(textOf(audit.answer)).not.toContain('time_utc');
    const requests = await ask(ADA, 'audit action=pay.send user=slack:UADA');
    expect(textOf(requests)).toContain('approval request');
    const approvals = await auditCsv(ADA, 'audit action=pay.send user=slack:UBEA csv=true');
    expect(
      approvals.rows.some(
        (r) => r.action === 'approval.approve' && r.user === 'slack:UBEA' && r.arguments.includes('requested_by=slack:UADA'),
      ),
    ).toBe(true);
  });

  it('pays once when two admins click Approve together', async () => {
    const before = payments();
    const request = await requestPayment(6000);
    const approve = button(request.body, 'Approve');
    const [one, two] = await Promise.all([click(BEA, approve), click(CY, approve)]);
    const texts = [textOf(one), textOf(two)];
    expect(texts.filter((t) => t.includes('Payment sent'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('already approved'))).toHaveLength(1);
    expect(payments()).toBe(before + 1);
  });

  it('refuses a send over the daily limit, saying what is left and when it resets', async () => {
    // 5,000 + 6,000 sats were approved today against ada's 20,000.
    const before = payments();
    const refused = await requestPayment(12_000);
    expect(refused.body.response_type).toBe('ephemeral');
    const said = textOf(refused);
    expect(said).toContain('Over the daily limit');
    expect(said).toContain('11,000 sats spent today, 9,000 sats left');
    expect(said).toContain('resets at 00:00 UTC');
    expect(payments()).toBe(before);
    const limits = await ask(ADA, 'policy limits');
    expect(textOf(limits)).toContain('9,000 sats');
  });

  it('refuses an approver whose admin role does not reach the node', async () => {
    const DEE = { id: 'UDEE', name: 'dee' };
    expect(textOf(await ask(ADA, 'access grant slack:UDEE admin nodes=bob'))).toContain('nodes=bob only');
    const before = payments();
    const request = await requestPayment(2000);
    const refused = await click(DEE, button(request.body, 'Approve'));
    expect(refused.body.response_type).toBe('ephemeral');
    expect(textOf(refused)).toContain('on alice needs the admin role; your admin role (slack:UDEE) is limited to nodes=bob');
    expect(payments()).toBe(before);
  });

  it('closes a rejected request with its reason, and nothing is paid', async () => {
    const before = payments();
    const request = await requestPayment(2000);
    const opened = fake.callsTo('views.open').length;
    await slack.click(BEA, button(request.body, 'Reject'));
    await fake.waitForCalls('views.open', opened + 1);
    const posted = fake.callsTo('chat.postMessage').length;
    await slack.submit(BEA, fake.views.at(-1)!, { reason: 'wrong invoice, ask finance' });
    const [post] = (await fake.waitForCalls('chat.postMessage', posted + 1)).slice(posted);
    expect(JSON.stringify(post.args)).toContain('Rejected by bea (slack:UBEA): wrong invoice, ask finance');
    const audit = await auditCsv(ADA, 'audit action=pay.send user=slack:UBEA csv=true');
    expect(audit.csv).toContain('approval.reject,alice,');
    expect(audit.rows.some((r) => r.action === 'approval.reject' && r.reason.includes('wrong invoice, ask finance'))).toBe(true);
    const late = await click(CY, button(request.body, 'Approve'));
    expect(textOf(late)).toContain('already rejected');
    expect(payments()).toBe(before);
  });

  it('cannot approve a request after it expired', async () => {
    const before = payments();
    const request = await requestPayment(2000);
    ahead += 31 * 60_000;
    const late = await click(BEA, button(request.body, 'Approve'));
    expect(late.body.replace_original).toBe(true);
    expect(textOf(late)).toContain('Expired: pay send');
    expect(textOf(late)).toContain('nothing was done');
    expect(payments()).toBe(before);
  });

  const backups = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/backup')).length;
  /** `node destroy bob` with the backup ticked, as far as the approval request it posts. */
  async function requestDestroy() {
    const opened = fake.callsTo('views.open').length;
    await slack.slash(ADA, 'node destroy bob');
    await fake.waitForCalls('views.open', opened + 1);
    const view = fake.views.at(-1)!;
    // Under approval the password is not asked now: it would have to wait, or lock the node early.
    expect(view.blocks.some((b: any) => b.block_id === 'backup_password')).toBe(false);
    expect(JSON.stringify(view)).toContain('asked of you privately once it is approved');
    const posted = fake.callsTo('chat.postMessage').length;
    await slack.submit(ADA, view, { confirm_name: 'bob', backup: true });
    const [post] = (await fake.waitForCalls('chat.postMessage', posted + 1)).slice(posted);
    return post.args;
  }
  const stillUnlocked = async () => expect(textOf(await ask(ADA, 'node unlock bob'))).toContain('bob is already unlocked.');

  it('destroy with a backup locks nothing before the approval: the request shows the funds, and after a Reject bob is not locked', async () => {
    const before = backups();
    const request = await requestDestroy();
    const said = JSON.stringify(request);
    expect(said).toContain('Approval needed: node destroy bob');
    expect(said).toContain('Still holds');
    expect(said).not.toContain('not all readable');
    expect(said).toContain('Once approved');
    expect(backups()).toBe(before);
    await stillUnlocked();

    const opened = fake.callsTo('views.open').length;
    await slack.click(BEA, button(request, 'Reject'));
    await fake.waitForCalls('views.open', opened + 1);
    const posted = fake.callsTo('chat.postMessage').length;
    await slack.submit(BEA, fake.views.at(-1)!, { reason: 'keep bob' });
    const [post] = (await fake.waitForCalls('chat.postMessage', posted + 1)).slice(posted);
    expect(JSON.stringify(post.args)).toContain('Nothing was done');
    await stillUnlocked();
    expect(backups()).toBe(before);
  });

  it('destroy with a backup that expires unapproved leaves bob unlocked', async () => {
    const before = backups();
    const request = await requestDestroy();
    ahead += 31 * 60_000;
    const late = await click(BEA, button(request, 'Approve'));
    expect(textOf(late)).toContain('Expired: node destroy');
    await stillUnlocked();
    expect(backups()).toBe(before);
    expect(h.emulator.nodes().some((n) => n.name === 'bob')).toBe(true);
  });

  it('approved, the requester enters the password privately, then bob is backed up and destroyed; the password is nowhere', async () => {
    const before = backups();
    const request = await requestDestroy();
    const approved = await click(BEA, button(request, 'Approve'));
    expect(textOf(approved)).toContain('Approved: node destroy bob, waiting for ada');
    expect(textOf(approved)).toContain('Nothing was done yet');
    expect(backups()).toBe(before);
    await stillUnlocked();
    const go = button(approved.body, 'Enter the node password');
    // Only the requester goes on.
    expect(textOf(await click(BEA, go))).toContain('Only ada');

    const opened = fake.callsTo('views.open').length;
    await slack.click(ADA, go);
    await fake.waitForCalls('views.open', opened + 1);
    const view = fake.views.at(-1)!;
    expect(view.blocks.filter((b: any) => b.type === 'input').map((b: any) => b.block_id)).toEqual(['backup_password']);
    const posted = fake.callsTo('chat.postMessage').length;
    await slack.submit(ADA, view, { backup_password: PASSWORD });
    const [post] = (await fake.waitForCalls('chat.postMessage', posted + 1)).slice(posted);
    expect(JSON.stringify(post.args)).toContain('Node destroyed');
    expect(JSON.stringify(post.args)).toContain('approved by slack:UBEA');
    // (RLN backs up a locked node: the bot locks it and tries again, so one or two calls.)
    expect(backups()).toBeGreaterThan(before);
    // The service takes it down in its own time: DESTROING, then gone from the list.
    await waitFor(() => !h.emulator.nodes().some((n) => n.name === 'bob'), { what: 'bob to leave the node list' });
    // It ran once: the button again does nothing.
    expect(textOf(await click(ADA, go))).toContain('already ran');
    // The password reached the node for the backup, and nothing the bot said or stored.
    expect(JSON.stringify([fake.responds.map((r) => r.body), fake.calls.map((c) => c.args)])).not.toContain(PASSWORD);
    const stored = await h.app.db.all('SELECT * FROM core_approvals');
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    expect(JSON.stringify(await h.app.db.all('SELECT * FROM core_audit'))).not.toContain(PASSWORD);
  });
});
