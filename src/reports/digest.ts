/**
 * The daily digest: what the last 24 hours held for one node or all of them, in one message,
 * with how each figure changed since the 24 hours before. It reads only what the bot stored
 * itself (node events from the webhook and the activity poller, the channel's incidents, the
 * audit trail), so it asks no node anything and costs the same whatever the nodes' state.
 */
import type { TopLevelSpec } from 'vega-lite';
import { formatDelta, formatDuration, formatSats, formatTime, msatToSat, shortId, thousands, withPrecision } from '../vocabulary/index.js';
import { messageFile, msg, type Field, type Message, type MessageFile } from '../vocabulary/index.js';
import type { DigestAuditRow, DigestEventRow, DigestIncidentRow } from '../store/index.js';
import { CHART_CONFIG, CHART_WIDTH, renderChart } from './charts/render-chart.js';

export const DIGEST_WINDOW_MS = 24 * 3_600_000;
/** Events read per day at most: a day past it is counted from its first events, and says so. */
export const DIGEST_MAX_EVENTS = 50_000;
/** Incidents listed by name; the others are counted. */
const MAX_INCIDENT_LINES = 10;
const MAX_COMMAND_LINES = 10;

/** The commands whose successes the digest tells: upgrades and locks done through the bot. */
export const DIGEST_COMMANDS = { upgrade: 'node upgrade', lock: 'node lock' } as const;

/** The activity event types the digest counts (as stored: `ACTIVITY_` and the type in capitals). */
const T = {
  received: 'ACTIVITY_PAYMENT_RECEIVED',
  sent: 'ACTIVITY_PAYMENT_SENT',
  failed: 'ACTIVITY_PAYMENT_FAILED',
  opened: 'ACTIVITY_CHANNEL_OPENED',
  closed: 'ACTIVITY_CHANNEL_CLOSED',
  locked: 'ACTIVITY_NODE_LOCKED',
} as const;

/** What an activity event's stored payload carries besides its message (see the activity room's `facts`). */
interface StoredFacts {
  amtMsat?: string;
  assetId?: string;
  assetAmount?: string;
  assetLabel?: string;
  precision?: number;
}

interface AssetTotal {
  label: string;
  precision: number;
  /** BTC in msat; an asset in raw units. */
  in: bigint;
  out: bigint;
}

/** The figures of one day. */
export interface DigestFigures {
  paymentsIn: number;
  paymentsOut: number;
  paymentsFailed: number;
  channelsOpened: number;
  channelsClosed: number;
  incidents: number;
  upgrades: number;
  locks: number;
  /** Alerts (stored node events) by the kind a watch chooses: status, payments, channels, … */
  alerts: Map<string, number>;
  /** Payment totals by asset: `BTC`, or the asset id. */
  assets: Map<string, AssetTotal>;
  /** True when the day had more events than DIGEST_MAX_EVENTS. */
  truncated: boolean;
}

export interface DigestDay {
  events: DigestEventRow[];
  incidents: DigestIncidentRow[];
  commands: DigestAuditRow[];
}

function parsePayload(p: string): { kind?: string; facts?: StoredFacts } {
  try {
    const v = JSON.parse(p) as unknown;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

const big = (s: string | undefined): bigint => {
  try {
    return s === undefined ? 0n : BigInt(s);
  } catch {
    return 0n;
  }
};

/** The figures of one day's records. */
export function digestFigures(day: DigestDay): DigestFigures {
  const f: DigestFigures = {
    paymentsIn: 0,
    paymentsOut: 0,
    paymentsFailed: 0,
    channelsOpened: 0,
    channelsClosed: 0,
    incidents: day.incidents.length,
    upgrades: day.commands.filter((c) => c.path === DIGEST_COMMANDS.upgrade).length,
    locks: day.commands.filter((c) => c.path === DIGEST_COMMANDS.lock).length,
    alerts: new Map(),
    assets: new Map(),
    truncated: day.events.length >= DIGEST_MAX_EVENTS,
  };
  const add = (key: string, label: string, precision: number, side: 'in' | 'out', amount: bigint) => {
    const t = f.assets.get(key) ?? { label, precision, in: 0n, out: 0n };
    t[side] += amount;
    f.assets.set(key, t);
  };
  for (const e of day.events) {
    const activity = e.eventType.startsWith('ACTIVITY_');
    const payload = activity ? parsePayload(e.payload) : {};
    const kind = activity ? (payload.kind ?? 'activity') : 'status';
    f.alerts.set(kind, (f.alerts.get(kind) ?? 0) + 1);
    switch (e.eventType) {
      case T.received:
      case T.sent: {
        const side = e.eventType === T.received ? 'in' : 'out';
        if (side === 'in') f.paymentsIn++;
        else f.paymentsOut++;
        const facts = payload.facts ?? {};
        if (facts.amtMsat !== undefined) add('BTC', 'BTC (sats)', 3, side, big(facts.amtMsat));
        if (facts.assetId && facts.assetAmount !== undefined) {
          add(facts.assetId, facts.assetLabel ?? shortId(facts.assetId, 14), facts.precision ?? 0, side, big(facts.assetAmount));
        }
        break;
      }
      case T.failed:
        f.paymentsFailed++;
        break;
      case T.opened:
        f.channelsOpened++;
        break;
      case T.closed:
        f.channelsClosed++;
        break;
      case T.locked:
        f.locks++;
        break;
    }
  }
  return f;
}

/** Keeps a day's records of the nodes in `nodeIds` (all when undefined). */
export function forNodes(day: DigestDay, nodeIds: ReadonlySet<string> | undefined): DigestDay {
  if (!nodeIds) return day;
  return {
    events: day.events.filter((e) => nodeIds.has(e.nodeId)),
    incidents: day.incidents.filter((i) => nodeIds.has(i.nodeId)),
    commands: day.commands.filter((c) => c.nodeId !== null && nodeIds.has(c.nodeId)),
  };
}

/** "3 (+1)": a figure and its change since the day before. */
const withChange = (now: number, before: number) => `${thousands(now)} (${formatDelta(now - before)})`;

/** An amount of one asset: BTC totals are kept in msat and shown in sats. */
function amountOf(key: string, t: Pick<AssetTotal, 'precision'>, v: bigint): string {
  return key === 'BTC' ? thousands(msatToSat(v)) : withPrecision(v, t.precision);
}
function changeOf(key: string, t: Pick<AssetTotal, 'precision'>, v: bigint): string {
  return key === 'BTC' ? formatDelta(msatToSat(v)) : formatDelta(v, t.precision);
}

export interface DigestInput {
  /** `all` or the node's name. */
  target: string;
  /** The end of the day reported (exclusive). */
  now: Date;
  timeZone?: string;
  today: DigestDay;
  yesterday: DigestDay;
  /** Whether to draw the chart (tests of the text leave it out: rendering takes a moment). */
  chart?: boolean;
}

export interface BuiltDigest {
  message: Message;
  today: DigestFigures;
  yesterday: DigestFigures;
}

function incidentLines(incidents: DigestIncidentRow[], end: number, tz: string | undefined): string {
  const lines = incidents.slice(0, MAX_INCIDENT_LINES).map((i) => {
    const name = i.nodeName ?? shortId(i.nodeId, 14);
    const opened = formatTime(new Date(i.openedAt), tz);
    return i.resolvedAt !== null
      ? `• #${i.id} ${name}, ${i.lastStatus}: lasted ${formatDuration(i.resolvedAt - i.openedAt)} (opened ${opened})`
      : `• #${i.id} ${name}, ${i.lastStatus}: still open, ${formatDuration(end - i.openedAt)} so far (opened ${opened})`;
  });
  const more = incidents.length - MAX_INCIDENT_LINES;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines.join('\n');
}

function commandLines(commands: DigestAuditRow[], lockEvents: DigestEventRow[], tz: string | undefined): string {
  const items = [
    ...commands.map((c) => ({
      at: Date.parse(c.at),
      text: `${c.node ?? c.nodeId ?? '?'} ${c.path === DIGEST_COMMANDS.upgrade ? 'upgraded' : 'locked'} through the bot`,
    })),
    ...lockEvents.map((e) => ({ at: e.receivedAt, text: `${e.nodeName ?? shortId(e.nodeId, 14)} restarted LOCKED` })),
  ].sort((a, b) => a.at - b.at);
  const lines = items.slice(0, MAX_COMMAND_LINES).map((i) => `• ${formatTime(new Date(i.at), tz)}: ${i.text}`);
  if (items.length > MAX_COMMAND_LINES) lines.push(`… and ${items.length - MAX_COMMAND_LINES} more`);
  return lines.join('\n');
}

/** The chart: each figure of the last 24 hours beside the 24 hours before. */
export function digestChartSpec(target: string, today: DigestFigures, yesterday: DigestFigures): TopLevelSpec {
  const alerts = (f: DigestFigures) => [...f.alerts.values()].reduce((a, b) => a + b, 0);
  const figures: Array<[string, (f: DigestFigures) => number]> = [
    ['Payments in', (f) => f.paymentsIn],
    ['Payments out', (f) => f.paymentsOut],
    ['Failed payments', (f) => f.paymentsFailed],
    ['Channels opened', (f) => f.channelsOpened],
    ['Channels closed', (f) => f.channelsClosed],
    ['Incidents', (f) => f.incidents],
    ['Upgrades', (f) => f.upgrades],
    ['Locks', (f) => f.locks],
    ['Alerts', alerts],
  ];
  const values = figures.flatMap(([figure, of]) => [
    { figure, day: 'The day before', count: of(yesterday) },
    { figure, day: 'Last 24 hours', count: of(today) },
  ]);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Daily digest of ${target}: the last 24 hours and the day before`,
    width: CHART_WIDTH - 140,
    height: 320,
    config: CHART_CONFIG,
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'figure', type: 'nominal', sort: figures.map(([f]) => f), title: null, axis: { labelAngle: -30 } },
      xOffset: { field: 'day', sort: ['The day before', 'Last 24 hours'] },
      y: { field: 'count', type: 'quantitative', title: 'Count', axis: { tickMinStep: 1 } },
      color: {
        field: 'day',
        type: 'nominal',
        title: null,
        sort: ['The day before', 'Last 24 hours'],
        scale: { range: ['#9e9e9e', '#1d9bd1'] },
      },
    },
  };
}

/** The digest's one message; with `chart`, its chart goes with it as a file. */
export async function buildDigest(input: DigestInput, onChartError?: (e: unknown) => void): Promise<BuiltDigest> {
  const today = digestFigures(input.today);
  const yesterday = digestFigures(input.yesterday);
  const tz = input.timeZone;
  const end = input.now.getTime();
  const from = new Date(end - DIGEST_WINDOW_MS);
  const change = (of: (f: DigestFigures) => number) => withChange(of(today), of(yesterday));
  const figures: Field[] = [
    { label: 'Payments in', value: change((f) => f.paymentsIn), inline: true },
    { label: 'Payments out', value: change((f) => f.paymentsOut), inline: true },
    { label: 'Failed payments', value: change((f) => f.paymentsFailed), inline: true },
    { label: 'Channels opened', value: change((f) => f.channelsOpened), inline: true },
    { label: 'Channels closed', value: change((f) => f.channelsClosed), inline: true },
    { label: 'Incidents', value: change((f) => f.incidents), inline: true },
    { label: 'Upgrades', value: change((f) => f.upgrades), inline: true },
    { label: 'Locks', value: change((f) => f.locks), inline: true },
  ];
  const blocks: Message['blocks'] = [
    msg.context(
      `${formatTime(from, tz)} – ${formatTime(input.now, tz)} · each figure with its change since the 24 hours before, in brackets`,
    ),
    msg.fields(figures),
  ];

  const keys = [...new Set([...today.assets.keys(), ...yesterday.assets.keys()])].sort((a, b) =>
    a === 'BTC' ? -1 : b === 'BTC' ? 1 : a.localeCompare(b),
  );
  if (keys.length) {
    const zero = { in: 0n, out: 0n };
    blocks.push(
      msg.table({
        columns: msg.columns('Asset', msg.right('In', 'Out', 'In, change', 'Out, change')),
        rows: keys.map((k) => {
          const t = today.assets.get(k) ?? { ...yesterday.assets.get(k)!, ...zero };
          const y = yesterday.assets.get(k) ?? zero;
          return [t.label, amountOf(k, t, t.in), amountOf(k, t, t.out), changeOf(k, t, t.in - y.in), changeOf(k, t, t.out - y.out)];
        }),
        caption: 'Payment totals per asset, succeeded payments only',
      }),
    );
  } else {
    blocks.push(msg.text('No payment moved any asset in the last 24 hours.'));
  }

  if (input.today.incidents.length) {
    blocks.push(msg.text([{ bold: 'Incidents' }, '\n', incidentLines(input.today.incidents, end, tz)]));
  }
  const lockEvents = input.today.events.filter((e) => e.eventType === T.locked);
  if (input.today.commands.length || lockEvents.length) {
    blocks.push(msg.text([{ bold: 'Upgrades and locks' }, '\n', commandLines(input.today.commands, lockEvents, tz)]));
  }

  const kinds = [...new Set([...today.alerts.keys(), ...yesterday.alerts.keys()])].sort();
  if (kinds.length) {
    blocks.push(msg.text([{ bold: 'Alerts by kind' }]));
    blocks.push(
      msg.fields(kinds.map((k) => ({ label: k, value: withChange(today.alerts.get(k) ?? 0, yesterday.alerts.get(k) ?? 0), inline: true }))),
    );
  } else {
    blocks.push(msg.context('No alerts in the last 24 hours.'));
  }
  if (today.truncated || yesterday.truncated) {
    blocks.push(
      msg.context(
        `More than ${thousands(DIGEST_MAX_EVENTS)} events in a day: the figures count the first ${thousands(DIGEST_MAX_EVENTS)}.`,
      ),
    );
  }

  const files: MessageFile[] = [];
  if (input.chart !== false) {
    try {
      const chart = await renderChart(digestChartSpec(input.target, today, yesterday));
      files.push(
        messageFile({
          name: `digest-${input.target.replace(/[^A-Za-z0-9_.-]/g, '_')}.png`,
          mime: 'image/png',
          bytes: chart.png,
          title: `Daily digest of ${input.target}`,
          alt: `Bar chart of payments in and out, failed payments, channels opened and closed, incidents, upgrades, locks and alerts of ${input.target}: the last 24 hours beside the 24 hours before`,
          width: chart.width,
          height: chart.height,
        }),
      );
    } catch (e) {
      onChartError?.(e);
      blocks.push(msg.context('The chart could not be drawn; the figures above are complete.'));
    }
  }

  const total = (f: DigestFigures) => [...f.alerts.values()].reduce((a, b) => a + b, 0);
  const btc = today.assets.get('BTC');
  const summary =
    `Daily digest of ${input.target}: ${today.paymentsIn} payments in, ${today.paymentsOut} out` +
    (btc ? ` (${formatSats(msatToSat(btc.in))} in, ${formatSats(msatToSat(btc.out))} out)` : '') +
    `, ${today.channelsOpened} channels opened, ${today.channelsClosed} closed, ${today.incidents} incidents, ${total(today)} alerts`;
  return {
    message: {
      header: `Daily digest: ${input.target}`,
      purpose: 'report',
      tone: today.incidents > 0 ? 'warning' : 'info',
      summary,
      blocks,
      ...(files.length ? { files } : {}),
    },
    today,
    yesterday,
  };
}
