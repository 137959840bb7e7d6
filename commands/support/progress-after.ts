/**
 * A progress message for a command that may take a while (a report over every node): nothing if
 * it answers within `afterMs`, else a message posted where the command was typed (the services'
 * ProgressReporter) and edited as the work goes on, at most once a second, and a last time when
 * it is done. Best effort: a platform that cannot post it just shows the answer.
 */
import { msg, type Message } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';

/** A command that has not answered after this long posts a progress message. */
export const PROGRESS_AFTER_MS = 2_000;
/** The progress message is edited at most this often. */
const EDIT_EVERY_MS = 1_000;

export interface Progress {
  /** How far the work is: `done` of `total`. */
  tell(done: number, total: number): void;
  /** The work is done (the answer follows); edits the message a last time if one was posted. */
  finish(text: string): Promise<void>;
}

export function progressAfter(ctx: CommandContext<unknown>, title: string, what: string, afterMs = PROGRESS_AFTER_MS): Progress {
  let done = 0;
  let total = 0;
  let finished = false;
  let lastEdit = 0;
  let pending: NodeJS.Timeout | undefined;
  let posted: Promise<{ update(message: Message): Promise<void> } | undefined> | undefined;
  const message = (text: string): Message => ({
    header: title,
    tone: 'info',
    blocks: [msg.text(text), ...(total ? [msg.progress(what, done, total)] : [])],
  });
  const edit = () => {
    pending = undefined;
    lastEdit = Date.now();
    void posted?.then((p) => p?.update(message(`Working: ${done} of ${total} ${what.toLowerCase()}…`)));
  };
  const timer = setTimeout(() => {
    if (finished) return;
    lastEdit = Date.now();
    posted = (
      ctx.services.progress?.start(ctx.place, message(`Working: ${done} of ${total || '?'} ${what.toLowerCase()}…`)) ??
      Promise.resolve(undefined)
    ).catch(() => undefined);
  }, afterMs);
  timer.unref?.();
  return {
    tell(d, t) {
      done = d;
      total = t;
      if (!posted || pending || finished) return;
      pending = setTimeout(edit, Math.max(0, lastEdit + EDIT_EVERY_MS - Date.now()));
      pending.unref?.();
    },
    async finish(text) {
      finished = true;
      clearTimeout(timer);
      clearTimeout(pending);
      const p = await posted;
      await p?.update(message(text)).catch(() => undefined);
    },
  };
}
