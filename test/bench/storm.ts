/**
 * Storm: thousands of status events over many nodes in a few seconds, to one Slack
 * channel. Reports the chat messages posted (Slack allows about one per second per
 * channel), the events lost (every node's last status must become visible) and the time
 * from the last event to the moment every last status is visible.
 */
import { startHarness } from '../support/harness.js';
import { startFakeSlack, type ApiCall } from '../fakes/slack/index.js';
import { openLoop, type RequestSpec } from './load.js';
import type { BenchResult } from './types.js';

const STATUSES = ['RUNNING', 'STARTING', 'PAUSED', 'IN_PROGRESS'] as const;
const CHANNEL = 'CSTORM';

const STATUS = /\b(RUNNING|STARTING|PAUSED|IN_PROGRESS|FAILED)\b/;

/** A native table cell's text (raw_text, raw_number, or rich_text's elements). */
function cellText(cell: any): string {
  if (cell?.type === 'raw_text') return String(cell.text ?? '');
  if (cell?.type === 'raw_number') return String(cell.value ?? '');
  return [...JSON.stringify(cell ?? '').matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join(' ');
}

/**
 * The last status shown for each node, reading the posts and edits in order: a digest is a native
 * table (a row per node: its name, then its status among the cells), other messages are text.
 */
function visibleStatuses(calls: ApiCall[]): Map<string, string> {
  const seen = new Map<string, string>();
  for (const c of calls) {
    if (c.args.channel !== CHANNEL) continue;
    const blocks: any[] = typeof c.args.blocks === 'string' ? JSON.parse(c.args.blocks) : (c.args.blocks ?? []);
    const tables = blocks.filter((b) => b?.type === 'table' || b?.type === 'data_table');
    const text = JSON.stringify({ ...c.args, blocks: blocks.filter((b) => !tables.includes(b)) }).replace(/\\n/g, '\n');
    for (const m of text.matchAll(/(s\d{3})\s+\S*\s*(RUNNING|STARTING|PAUSED|IN_PROGRESS|FAILED)/g)) seen.set(m[1], m[2]);
    for (const t of tables) {
      for (const row of t.rows ?? []) {
        const cells = (row as unknown[]).map(cellText);
        const status = cells
          .slice(1)
          .map((x) => x.match(STATUS)?.[1])
          .find(Boolean);
        if (/^s\d{3}$/.test(cells[0]?.trim() ?? '') && status) seen.set(cells[0].trim(), status);
      }
    }
  }
  return seen;
}

export async function storm(opts: { events: number; nodes: number; seconds: number }): Promise<BenchResult> {
  const slack = await startFakeSlack();
  const h = await startHarness({
    env: { SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_SIGNING_SECRET: 'bench-signing-secret', SLACK_API_URL: slack.apiUrl },
    emulator: { lifecycleDelayMs: 5 },
  });
  try {
    const names = Array.from({ length: opts.nodes }, (_, i) => `s${String(i).padStart(3, '0')}`);
    for (const name of names) await h.app.services.hosting.createNode({ name, network: 'regtest' });
    await new Promise((r) => setTimeout(r, 200));
    const nodes = await h.app.services.hosting.listNodes();
    const idOf = new Map(nodes.map((n) => [n.name, n.nodeId]));
    await h.app.services.watches.add({
      place: { platform: 'slack', channelId: CHANNEL },
      target: 'all',
      actor: { platform: 'slack', userId: 'UBENCH' },
    });

    const last = new Map<string, string>();
    // Stamped in the past, one millisecond apart in sending order: the bot orders a node's events
    // by their own stamps. A stamp ahead of the bot's clock counts as its arrival instead
    // (webhooks/event-time.ts), and under load the arrival order is not the sending order: with
    // the fixed stamp this bench used (2027-01-15, ahead of today), a busy machine showed a
    // node's second status as its last, and the bench waited for the last one until it timed out.
    const stampedFrom = Date.now() - 60_000 - opts.events;
    const make = (i: number): RequestSpec => {
      const name = names[i % names.length];
      const nodeId = idOf.get(name)!;
      const status = STATUSES[(i * 7 + Math.floor(i / names.length)) % STATUSES.length];
      last.set(name, status);
      const body = Buffer.from(
        JSON.stringify({
          eventType: 'NODE_STATUS_UPDATED',
          eventTimestamp: new Date(stampedFrom + i).toISOString(),
          details: { nodeId, status },
          nodeId,
        }),
      );
      return {
        path: '/webhooks/service',
        body,
        headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) },
      };
    };
    const t0 = performance.now();
    const load = await openLoop(h.url, make, opts.events / opts.seconds, opts.seconds);
    const sentAt = performance.now();
    // Wait (bounded) until every node's last status is the one shown.
    const deadline = sentAt + 120_000;
    let missing = names.length;
    while (performance.now() < deadline) {
      const seen = visibleStatuses([...slack.callsTo('chat.postMessage'), ...slack.callsTo('chat.update')]);
      missing = names.filter((n) => seen.get(n) !== last.get(n)).length;
      if (missing === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const visibleMs = performance.now() - sentAt;
    const inChannel = [...slack.callsTo('chat.postMessage'), ...slack.callsTo('chat.update')]
      .filter((c) => c.args.channel === CHANNEL)
      .sort((a, b) => a.at - b.at);
    const posts = inChannel.filter((c) => c.method === 'chat.postMessage').length;
    const updates = inChannel.length - posts;
    const gaps = inChannel.slice(1).map((c, i) => c.at - inChannel[i].at);
    const minGapMs = gaps.length ? Math.min(...gaps) : Infinity;
    // The busiest second: the most calls in any one-second window.
    const busiestSecond = Math.max(0, ...inChannel.map((c) => inChannel.filter((d) => d.at >= c.at && d.at < c.at + 1000).length));
    const spanS = (performance.now() - t0) / 1000;
    return {
      name: 'storm',
      figures: {
        events: opts.events,
        nodes: opts.nodes,
        send_seconds: opts.seconds,
        webhooks_refused: load.failed,
        chat_messages: posts,
        chat_edits: updates,
        messages_per_s_overall: Math.round((inChannel.length / spanS) * 100) / 100,
        min_gap_between_messages_ms: minGapMs,
        most_messages_in_any_second: busiestSecond,
        nodes_last_status_not_visible: missing,
        last_status_visible_after_s: Math.round(visibleMs / 100) / 10,
      },
      targets: [
        { what: '≤ 1 message per second per channel (in every one-second window)', met: busiestSecond <= 1 },
        { what: 'no event lost (every last status visible)', met: missing === 0 && load.failed === 0 },
      ],
    };
  } finally {
    await h.close();
    await slack.close();
  }
}
