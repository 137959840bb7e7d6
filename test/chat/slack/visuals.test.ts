/**
 * What a team sees rather than reads, end to end over the fake Slack (Socket Mode, the real
 * Bolt app, the whole bot against the emulator): QR codes uploaded with invoices and addresses,
 * decoded by an independent reader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackWorld, type SlackWorld } from '../../support/start-slack-world.js';
import { waitFor } from '../../support/wait-for.js';
import { startFakeSlack, createSlackDriver, type FakeSlack, type SlackDriver, type RespondCall } from '../../fakes/slack/index.js';
import { decodeQr, readPng } from '../../support/decode-png.js';
import { CHART_WIDTH } from '../../../src/reports/charts/render-chart.js';
import { EMULATOR_LEAKED_SECRETS } from '../../../src/emulator/index.js';

const OPERATOR = { id: 'UOPS', name: 'otto' };
const CHANNEL = 'CVISUALS';

describe('visual answers on Slack', () => {
  let fake: FakeSlack;
  let h: SlackWorld;
  let slack: SlackDriver;

  beforeAll(async () => {
    fake = await startFakeSlack();
    h = await startSlackWorld('socket', {
      SLACK_BOT_TOKEN: 'xoxb-visuals-bot-token',
      SLACK_APP_TOKEN: 'xapp-visuals-app-token',
      SLACK_API_URL: fake.apiUrl,
      OPERATOR_USERS: `slack:${OPERATOR.id}`,
    });
    await fake.connected();
    slack = createSlackDriver(fake, 'socket');
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  async function ask(text: string, channelId = CHANNEL): Promise<RespondCall> {
    return slack.ask(OPERATOR, text, { channelId });
  }

  /** The text of the first code block of an answer. */
  const codeBlockOf = (r: RespondCall): string => {
    const blocks = [...(r.body.blocks ?? []), ...(r.body.attachments ?? []).flatMap((a: any) => a.blocks ?? [])];
    const text = blocks.map((b: any) => b.text?.text ?? '').find((t: string) => t.includes('```')) ?? '';
    return text.replace(/```/g, '').trim();
  };

  it('/rln status lists every emulated node with its state, lock state and buttons to open it or run its report', async () => {
    const r = await ask('status');
    const text = JSON.stringify(r.body);
    const nodes = h.emulator.nodes();
    expect(nodes.length).toBeGreaterThan(1);
    for (const n of nodes) {
      expect(text).toContain(n.name);
      expect(text).toContain(n.status);
    }
    // The demo nodes are initialised and unlocked.
    expect(text).toContain('unlocked');
    const labels = JSON.stringify(r.body).match(/"text":"[^"]*: (details|report)"/g) ?? [];
    expect(labels.length).toBe(2 * Math.min(nodes.length, 8));
  });

  it('uploads a QR code with a Lightning invoice that decodes to the invoice shown', async () => {
    const before = fake.uploads.length;
    const r = await ask('invoice ln alice amt_msat=3000000');
    const invoice = codeBlockOf(r);
    expect(invoice).toMatch(/^ln/);
    const [upload] = await waitFor(() => fake.uploads.slice(before).filter((u) => u.completed).length && fake.uploads.slice(before), {
      timeout: 10_000,
      what: 'the QR upload',
    });
    expect(upload.channelId).toBe(CHANNEL);
    expect(upload.filename).toBe('invoice-ln.png');
    expect(upload.bytes!.length).toBe(upload.length);
    expect(decodeQr(upload.bytes!)).toBe(invoice);
  });

  it('uploads a QR code of the new on-chain address', async () => {
    const before = fake.uploads.length;
    const r = await ask('wallet address alice');
    const address = codeBlockOf(r);
    expect(address.length).toBeGreaterThan(20);
    const [upload] = await waitFor(() => fake.uploads.slice(before).filter((u) => u.completed).length && fake.uploads.slice(before), {
      timeout: 10_000,
      what: 'the QR upload',
    });
    expect(decodeQr(upload.bytes!)).toBe(address);
  });

  it('joins a public channel it is not in before sharing a file there', async () => {
    fake.notMemberOf.add('CNOTYET');
    const before = fake.uploads.length;
    await ask('invoice ln alice amt_msat=1000000', 'CNOTYET');
    await waitFor(() => fake.uploads.slice(before).some((u) => u.completed), { timeout: 10_000, what: 'the QR upload' });
    expect(fake.callsTo('conversations.join').map((c) => c.args.channel)).toContain('CNOTYET');
    expect(fake.uploads.slice(before).find((u) => u.completed)?.channelId).toBe('CNOTYET');
  });

  it('a scheduled balance report uploads a valid PNG chart of the stated size into its channel', async () => {
    await ask('report schedule kind=balance node=alice cron="*/1 * * * * *"', 'CCHARTS');
    try {
      // The first run leaves the first snapshot; the next one has a history to draw.
      const upload = await waitFor(() => fake.uploads.find((u) => u.completed && u.filename === 'balance-alice-7d.png'), {
        timeout: 15_000,
        what: 'the chart upload',
      });
      expect(upload.channelId).toBe('CCHARTS');
      expect(upload.title).toBe('Balances of alice, last 7 days');
      expect(upload.bytes!.length).toBe(upload.length);
      const png = readPng(upload.bytes!);
      expect(png.width).toBe(CHART_WIDTH);
      expect(png.height).toBeGreaterThan(200);
      const report = fake
        .callsTo('chat.postMessage')
        .find((c) => c.args.channel === 'CCHARTS' && JSON.stringify(c.args).includes('Balance report'));
      expect(report).toBeDefined();
    } finally {
      const list = await ask('report schedules', 'CCHARTS');
      for (const m of JSON.stringify(list.body).matchAll(/(\d+)\s+balance\s+alice/g)) await ask(`report unschedule ${m[1]}`, 'CCHARTS');
    }
  });

  it('an app_home_opened event leads to a views.publish of the dashboard naming the nodes, for that user', async () => {
    const before = fake.callsTo('views.publish').length;
    await fake.sendEnvelope('events_api', {
      type: 'event_callback',
      team_id: fake.teamId,
      event: { type: 'app_home_opened', user: OPERATOR.id, channel: 'DHOME', tab: 'home', event_ts: '1700000000.000100' },
    });
    const calls = await fake.waitForCalls('views.publish', before + 1);
    const published = calls[before];
    expect(published.args.user_id).toBe(OPERATOR.id);
    expect(published.args.view.type).toBe('home');
    const text = JSON.stringify(published.args.view.blocks);
    for (const n of h.emulator.nodes()) expect(text).toContain(n.name);
    expect(text).toContain('operate');
    expect(published.args.view.blocks.length).toBeLessThanOrEqual(100);
  });

  it("node logs shows the last lines of the emulator's log export in a code block and uploads the files, secrets masked", async () => {
    const before = fake.uploads.length;
    const r = await ask('node logs alice lines=10', 'CLOGS');
    const text = JSON.stringify(r.body);
    expect(text).toContain('Last 10 of');
    expect(text).toContain('```');
    expect(text).toMatch(/rgb_lightning_node: status RUNNING/);
    const uploads = await waitFor(
      () => {
        // Only this channel's: a report scheduled by an earlier test may still be delivering elsewhere.
        const done = fake.uploads.slice(before).filter((u) => u.completed && u.channelId === 'CLOGS');
        return done.length >= 2 && done;
      },
      { timeout: 10_000, what: 'the log uploads' },
    );
    expect(uploads.map((u) => u.filename).sort()).toEqual(['alice-rln.log', 'alice-service.log']);
    // The wait was shown in a message of its own, edited in place as the export progressed.
    const progress = fake
      .callsTo('chat.postMessage')
      .find((c) => c.args.channel === 'CLOGS' && JSON.stringify(c.args).includes('Exporting the logs'));
    expect(progress).toBeDefined();
    const edits = fake
      .callsTo('chat.update')
      .filter((c) => c.args.channel === 'CLOGS')
      .map((c) => JSON.stringify(c.args));
    expect(edits.some((e) => e.includes('not ready after 1 check'))).toBe(true);
    expect(edits.at(-1)).toContain('Export ready');
    const log = uploads.find((u) => u.filename === 'alice-rln.log')!.bytes!.toString('utf8');
    expect(log).toContain('[redacted]');
    for (const secret of Object.values(EMULATOR_LEAKED_SECRETS)) {
      expect(log).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
  });
});
