/** The answers of the node commands: a short message for what was done, and where backups go. */
import { msg, type Block, type Message } from '../../src/vocabulary/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { titled } from './present.js';

/** The default backup path on the node: `/backups/<name>-<UTC stamp>.backup`. */
export function defaultBackupPath(node: HostedNode, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `/backups/${node.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${stamp}.backup`;
}

export function done(node: HostedNode, title: string, text: string, extra: Block[] = [], tone: Message['tone'] = 'success'): Message {
  return { header: titled(title, node), tone, blocks: [msg.text(text), ...extra] };
}

/** What the service said with its answer, if anything. */
export function serviceNote(message?: string): Block[] {
  return message ? [msg.context(`Service: ${message}`)] : [];
}
