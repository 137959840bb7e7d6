/**
 * The terminal's "working" line (P32): Discord shows "thinking…" for an answer not ready in 2.5 s,
 * and `node logs` edits a progress message; a terminal command that takes seconds (a report, a
 * slow node) said nothing until its answer. Past `afterMs`, one line says it is running; on a TTY
 * the answer replaces it, elsewhere the answer follows it.
 */
export const WORKING_AFTER_MS = 1_000;

export const WORKING_TEXT = '⏳ Working on it… the answer follows.';

export async function withWorkingLine<T>(
  work: Promise<T>,
  o: { output: NodeJS.WritableStream; isTTY: boolean; afterMs: number },
): Promise<T> {
  let shown = false;
  const timer = setTimeout(() => {
    shown = true;
    o.output.write(o.isTTY ? WORKING_TEXT : `${WORKING_TEXT}\n`);
  }, o.afterMs);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
    // On a TTY the line has no newline yet: the cursor is still on it, so it is erased.
    if (shown && o.isTTY) o.output.write('\r\x1b[2K');
  }
}
