/**
 * The neutral messages the notifier posts: one event, a digest of many, an incident (with
 * its buttons), a line in an incident's thread, and a notice to admins. Pure functions.
 */
import { formatDuration, formatTime, shortId, statusBadge, statusTone } from '../vocabulary/index.js';
import { msg, type Block, type Button, type Field, type Message, type Tone } from '../vocabulary/index.js';
import type { IncidentRow } from '../store/index.js';

/** "2026-11-22 11:02 UTC": the time format of every other message (commands, reports, watches). */
function timeText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export const STATUS_EVENT = 'NODE_STATUS_UPDATED';
/** Event types of what the activity poller saw start with this (`ACTIVITY_PAYMENT_RECEIVED`). */
export const ACTIVITY_EVENT_PREFIX = 'ACTIVITY_';

/** One thing the activity poller saw on a node, rendered before it is queued. */
export interface ActivityItem {
  /** The same change seen again (a poll repeated after a crash) has the same key. */
  dedupeKey: string;
  /** What a watch chooses to hear: payments, channels, transfers, deposits, liquidity, lock. */
  kind: string;
  /** Heard by a watch of any of these kinds instead (an upgrade: status and lock); default `[kind]`. */
  kinds?: string[];
  type: string;
  /** For min_amount: the amount in msat, when the item moves bitcoin. */
  amountMsat?: number;
  message: Message;
  /** Stored with the event for the daily digest (a payment's amounts); plain JSON values. */
  facts?: Record<string, string | number>;
}

export interface EventView {
  nodeId: string;
  nodeName?: string | null;
  eventType: string;
  status?: string | null;
  eventTs?: string | null;
  payload?: Record<string, unknown>;
}

const nameOf = (v: { nodeId: string; nodeName?: string | null }): string => v.nodeName || shortId(v.nodeId, 16);

/** One event, on its own. An unknown event type is shown generically with its details. */
export function eventMessage(e: EventView): Message {
  const name = nameOf(e);
  const stored = e.eventType.startsWith(ACTIVITY_EVENT_PREFIX) ? (e.payload?.message as Message | undefined) : undefined;
  if (stored && typeof stored === 'object') return stored;
  if (e.status && (e.eventType === STATUS_EVENT || e.eventType === 'UNKNOWN')) {
    return {
      header: `${name}: ${statusBadge(e.status)}`,
      tone: statusTone(e.status),
      summary: `${name} is now ${e.status}`,
      blocks: [
        msg.fields([
          { label: 'Node', value: name, inline: true },
          { label: 'Status', value: statusBadge(e.status), inline: true },
          ...(e.eventTs ? [{ label: 'At', value: formatTime(e.eventTs), inline: true }] : []),
        ]),
        msg.context([{ code: e.nodeId }]),
      ],
    };
  }
  const details =
    e.payload && typeof e.payload.details === 'object' && e.payload.details
      ? (e.payload.details as Record<string, unknown>)
      : (e.payload ?? {});
  const fields: Field[] = [{ label: 'Node', value: name, inline: true }];
  if (e.status) fields.push({ label: 'Status', value: statusBadge(e.status), inline: true });
  if (e.eventTs) fields.push({ label: 'At', value: formatTime(e.eventTs), inline: true });
  for (const [k, v] of Object.entries(details)) {
    if (fields.length >= 10) break;
    if (k === 'nodeId' || k === 'status') continue;
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v))
      fields.push({ label: k, value: String(v).slice(0, 200), inline: true });
  }
  return {
    header: `${e.eventType} on ${name}`,
    tone: e.status ? statusTone(e.status) : 'info',
    summary: `${e.eventType} on ${name}`,
    blocks: [msg.fields(fields), msg.context(['Event type not known to this bot; shown as received. ', { code: e.nodeId }])],
  };
}

/** The most buttons one message carries: Discord's 5 rows of 5 (Slack takes 25 in one actions block). */
export const MAX_BUTTONS_PER_MESSAGE = 25;
/** The event type of an upgrade the follower told (src/activity/upgrade-follower.ts). */
export const UPGRADED_EVENT = `${ACTIVITY_EVENT_PREFIX}NODE_UPGRADED`;

/**
 * What the activity poller (or the upgrade follower) saw, as one message: the item's own message when
 * there is one; else one line per item (its header), the strongest tone, and the items' buttons (each
 * once, at most MAX_BUTTONS_PER_MESSAGE: the rest are named with the command to type). Upgrades of
 * several nodes at once are one message that lists every node, each with its own Unlock button.
 */
export function activityMessage(
  items: Message[],
  types: Array<string | null | undefined> = [],
  o: { nodeNames?: Array<string | null | undefined>; part?: number; parts?: number; total?: number } = {},
): Message {
  if (items.length === 1 && !(o.parts && o.parts > 1)) return items[0];
  // Items of several nodes: each button says whose it is ("Restart n03"), unless its label does already.
  const names = o.nodeNames ?? [];
  const several = new Set(names.filter(Boolean)).size > 1;
  const named = (m: Message, i: number): Message['buttons'] =>
    several && names[i] && m.buttons
      ? m.buttons.map((b) => (b.label.includes(names[i]!) ? b : { ...b, label: `${b.label} ${names[i]}` }))
      : m.buttons;
  const tone = items.reduce<Tone>(
    (t, m) => (TONE_RANK.indexOf(m.tone ?? 'info') > TONE_RANK.indexOf(t) ? (m.tone ?? 'info') : t),
    'neutral',
  );
  const lines = items.map((m) => `• ${m.header ?? m.summary ?? ''}`);
  const upgrades = types.filter((t) => t === UPGRADED_EVENT).length;
  const locked = items.filter((m, i) => types[i] === UPGRADED_EVENT && m.buttons?.some((b) => b.command === 'node unlock')).length;
  const header =
    upgrades === items.length
      ? `${upgrades} nodes upgraded${locked ? `, ${locked === upgrades ? 'every one' : locked} LOCKED` : ''}`
      : `${o.total ?? items.length} changes seen on the nodes`;
  const part = o.parts && o.parts > 1 ? ` (part ${o.part}/${o.parts})` : '';
  const seen = new Set<string>();
  const all = items
    .flatMap((m, i) => (named(m, i) ?? []).map((button) => ({ button, name: names[i] })))
    .filter(({ button: b }) => {
      const key = `${b.command}|${JSON.stringify(b.args ?? {})}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const buttons = all.slice(0, MAX_BUTTONS_PER_MESSAGE).map((x) => x.button);
  const left = all.slice(MAX_BUTTONS_PER_MESSAGE);
  const notes: Block[] = [];
  // The buttons a message cannot hold, as commands to type: the node by its name, as every alert names it.
  const typed = ({ button: b, name }: (typeof all)[number]) =>
    `\`${b.command} ${Object.entries(b.args ?? {})
      .map(([k, v]) => (k === 'node' && name ? name : v))
      .join(' ')}\``;
  if (left.length)
    notes.push(
      msg.context(`${left.length} more button${left.length === 1 ? '' : 's'} than a message holds: ${left.map(typed).join(', ')}.`),
    );
  return {
    header: `${header}${part}`,
    tone,
    summary: `${header}${part}: ${items
      .map((m) => m.header ?? m.summary)
      .slice(0, 5)
      .join('; ')}`,
    blocks: [
      msg.text(lines.join('\n')),
      ...notes,
      msg.context(
        upgrades === items.length
          ? 'Told as the nodes came back from their upgrade; each Unlock button opens a private dialog for its node.'
          : 'Seen by polling the nodes; several changes of one interval are posted together.',
      ),
    ],
    ...(buttons.length ? { buttons } : {}),
  };
}

/** The most of one message's list of activity lines: under Discord's 4,096 characters of an embed, one Slack section. */
export const ACTIVITY_PART_CHARS = 3_000;
/** The most items one activity message lists (a storm is posted in parts, as a status digest is). */
export const ACTIVITY_PART_ITEMS = 40;

/**
 * Splits a round's activity items into the parts posted one message each: in order, each part
 * within ACTIVITY_PART_ITEMS items and ACTIVITY_PART_CHARS characters of lines, so that a storm's
 * every line is shown rather than cut at the platform's limit. Returns the items' indexes per part.
 */
export function activityParts(items: Message[]): number[][] {
  const parts: number[][] = [];
  let current: number[] = [];
  let chars = 0;
  items.forEach((m, i) => {
    const len = (m.header ?? m.summary ?? '').length + 3;
    if (current.length && (current.length >= ACTIVITY_PART_ITEMS || chars + len > ACTIVITY_PART_CHARS)) {
      parts.push(current);
      current = [];
      chars = 0;
    }
    current.push(i);
    chars += len;
  });
  if (current.length) parts.push(current);
  return parts;
}

export interface DigestEntry {
  nodeId: string;
  nodeName?: string | null;
  /** Latest status in the batch, if any event carried one. */
  lastStatus?: string;
  /** Status changes (flaps) in the batch. */
  changes: number;
  events: number;
  /** Event types other than status updates, in the batch. */
  otherTypes: string[];
  note?: string;
}

const TONE_RANK: Tone[] = ['neutral', 'success', 'info', 'warning', 'danger'];

/** Many events in one message: every node involved, its latest status and its flaps. */
export function digestMessage(
  entries: DigestEntry[],
  opts: {
    totalEvents: number;
    muted: boolean;
    part?: number;
    parts?: number /** Events held by a mute, when only some were. */;
    heldEvents?: number;
  },
): Message {
  const tone = entries.reduce<Tone>((t, e) => {
    const et = e.lastStatus ? statusTone(e.lastStatus) : 'info';
    return TONE_RANK.indexOf(et) > TONE_RANK.indexOf(t) ? et : t;
  }, 'neutral');
  const part = opts.parts && opts.parts > 1 ? ` (part ${opts.part}/${opts.parts})` : '';
  const mutedNote = opts.muted ? ' while muted' : opts.heldEvents ? ` (${opts.heldEvents} held during a mute)` : '';
  const header = `${opts.totalEvents} event${opts.totalEvents === 1 ? '' : 's'} on ${entries.length} node${entries.length === 1 ? '' : 's'}${mutedNote}${part}`;
  const rows = entries.map((e) => [
    nameOf(e),
    e.lastStatus ? statusBadge(e.lastStatus) : '–',
    String(e.changes),
    String(e.events),
    [e.otherTypes.length ? e.otherTypes.join(', ') : '', e.note ?? ''].filter(Boolean).join('; '),
  ]);
  const summary = `${header}: ${entries
    .slice(0, 10)
    .map((e) => `${nameOf(e)} ${e.lastStatus ?? e.otherTypes[0] ?? ''}`.trim())
    .join(', ')}${entries.length > 10 ? ', …' : ''}`;
  return {
    header,
    tone,
    summary,
    blocks: [
      msg.table({
        columns: msg.columns('Node', 'Latest status', msg.right('Changes', 'Events'), 'Other'),
        rows,
      }),
      msg.context(
        opts.muted || opts.heldEvents
          ? 'Events that arrived while this channel was muted are summarised here, with any that came since.'
          : 'Events arrived faster than this channel is posted to; they are summarised here. Nothing was dropped.',
      ),
    ],
  };
}

/** The incident message: status, who acknowledged, duration when resolved; buttons while open. */
export function incidentMessage(inc: IncidentRow, now: number): Message {
  const name = inc.node_name || shortId(inc.node_id, 16);
  const open = inc.state === 'open';
  const fields: Field[] = [
    { label: 'Node', value: name, inline: true },
    { label: 'Status', value: statusBadge(inc.last_status), inline: true },
    { label: 'Opened', value: timeText(inc.opened_at), inline: true },
    { label: 'Acknowledged', value: inc.acked_by ? `by ${inc.acked_by} at ${timeText(inc.acked_at ?? now)}` : 'not yet', inline: true },
  ];
  if (inc.escalated_at)
    fields.push({
      label: 'Escalated',
      value: `at ${new Date(inc.escalated_at).toISOString()} to ${inc.escalated_to ?? 'on-call'}`,
      inline: true,
    });
  if (!open && inc.resolved_at) fields.push({ label: 'Duration', value: formatDuration(inc.resolved_at - inc.opened_at), inline: true });
  else fields.push({ label: 'Open for', value: formatDuration(now - inc.opened_at), inline: true });
  if (inc.changes) fields.push({ label: 'Status changes', value: String(inc.changes), inline: true });
  const buttons: Button[] = open
    ? [
        { label: 'Restart', style: 'primary', command: 'node start', args: { node: inc.node_id } },
        { label: 'Logs', style: 'secondary', command: 'node logs', args: { node: inc.node_id } },
        ...(inc.acked_by
          ? []
          : [
              {
                label: 'Acknowledge',
                style: 'secondary' as const,
                command: 'watch ack',
                args: { incident: String(inc.id), node: inc.node_id },
              },
            ]),
      ]
    : [];
  const header = open
    ? `Incident #${inc.id}: ${name} is ${inc.last_status}`
    : `Resolved #${inc.id}: ${name} is ${inc.last_status} again after ${formatDuration((inc.resolved_at ?? now) - inc.opened_at)}`;
  return {
    header,
    purpose: 'incident',
    tone: open ? (inc.last_status === 'FAILED' ? 'danger' : 'warning') : 'success',
    summary: header,
    blocks: [msg.fields(fields), msg.context([open ? 'Updates follow in the thread. ' : 'Resolved. ', { code: inc.node_id }])],
    buttons: buttons.length ? buttons : undefined,
  };
}

/** A line in the incident's thread. */
export function threadLine(text: string, tone: Tone = 'info'): Message {
  return { tone, summary: text, blocks: [msg.text(text)] };
}

export function noticeMessage(header: string, text: string): Message {
  return { header, tone: 'warning', summary: `${header}: ${text}`, blocks: [msg.text(text)] };
}
