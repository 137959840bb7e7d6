/** The nice value of each thread of a process (Linux), by thread id: field 19 of /proc/<pid>/task/<tid>/stat. */
import { readdirSync, readFileSync } from 'node:fs';

export type Nices = Record<string, number>;

export function threadNices(pid: number | 'self'): Nices {
  return Object.fromEntries(
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The fields after the name's closing parenthesis start at the third.
      return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    }),
  );
}

/**
 * A target nice value above a process's own, so that a lowering shows whatever nice the tests run
 * at; not HELPER_THREADS_NICE's default (10), so that a bot that ignored the setting would show.
 */
export const niceAbove = (base: number): number => Math.min(19, base + 7);
