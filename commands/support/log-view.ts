/**
 * What `node logs` shows once an export is ready: the last lines of the node's main log in a
 * code block, and every file of the export attached in full. Every line is masked first with
 * the one redactor (src/redact.ts), since a node may print a password, a token or its seed words.
 */
import { downloadLogFile, LOG_DOWNLOAD_MAX_BYTES, LOG_KEEP_BYTES } from '../../src/hosting/index.js';
import { msg, messageFile, type Block, type MessageFile } from '../../src/vocabulary/index.js';
import { redact } from '../../src/log.js';

/** One code block holds at most this much (Slack's section text holds 3,000). */
export const LOG_BLOCK_MAX_CHARS = 2_800;
/** All the lines shown hold at most this much (a Discord message's embeds hold 6,000): the rest is in the file. */
export const LOG_TAIL_MAX_CHARS = 5_000;

export interface LogView {
  blocks: Block[];
  files: MessageFile[];
}

/** The file that holds the node's own log: rln.log when there is one, else the first. */
function mainIndex(names: string[]): number {
  const i = names.findIndex((n) => /^rln.*\.log$/i.test(n));
  return i >= 0 ? i : 0;
}

/** Consecutive lines in code blocks of at most LOG_BLOCK_MAX_CHARS each (a longer line is cut). */
function chunks(lines: string[]): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const raw of lines) {
    const line = raw.length > LOG_BLOCK_MAX_CHARS ? `${raw.slice(0, LOG_BLOCK_MAX_CHARS - 1)}…` : raw;
    if (cur.length && size + line.length + 1 > LOG_BLOCK_MAX_CHARS) {
      out.push(cur.join('\n'));
      cur = [];
      size = 0;
    }
    cur.push(line);
    size += line.length + 1;
  }
  if (cur.length) out.push(cur.join('\n'));
  return out;
}

export async function logView(urls: string[], o: { lines: number; nodeName: string; maxBytes?: number }): Promise<LogView> {
  const maxBytes = o.maxBytes ?? LOG_DOWNLOAD_MAX_BYTES;
  const downloaded = await Promise.all(urls.map((u) => downloadLogFile(u, { maxBytes })));
  const masked = downloaded.map((d) => ({ ...d, text: redact(d.text) }));
  const main = masked[mainIndex(masked.map((d) => d.name))];
  const all = main.text.replace(/\n$/, '').split('\n');
  let tail = all.slice(-o.lines);
  while (tail.length > 1 && tail.join('\n').length > LOG_TAIL_MAX_CHARS) tail = tail.slice(1);
  const cut = tail.length < Math.min(o.lines, all.length) ? ' (as many as fit in a message; the whole file is attached)' : '';
  const blocks: Block[] = [
    msg.text([
      `Last ${tail.length} of ${all.length} lines of `,
      { code: main.name },
      main.cutAtMax
        ? ` (the file is longer than ${Math.round(maxBytes / 1024 / 1024)} MiB, LOG_DOWNLOAD_MAX_BYTES: read up to there, its last part kept)`
        : main.truncated
          ? ` (the last ${Math.round(LOG_KEEP_BYTES / 1024 / 1024)} MiB of the file)`
          : '',
      `${cut}:`,
    ]),
    ...chunks(tail).map((c) => msg.code(c)),
  ];
  const files = masked.map((d) =>
    messageFile({
      name: `${o.nodeName.replace(/[^A-Za-z0-9_.-]/g, '_')}-${d.name}`,
      mime: 'text/plain',
      bytes: Buffer.from(d.text, 'utf8'),
      title: `${d.name} of ${o.nodeName} (secrets masked)`,
      alt: `Log file ${d.name} of ${o.nodeName}`,
    }),
  );
  return { blocks, files };
}
