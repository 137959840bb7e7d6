/** What a person would type to run a command, and a duration in words, for prompts and refusals. */
import type { AnyCommand, Registry } from '../types.js';

function quoteValue(v: string): string {
  return /[\s"']/.test(v) || v === '' ? `"${v.replace(/"/g, "'")}"` : v;
}

/** `/rln node stop alice`: positional values first, then key=value. Pass redacted arguments. */
export function commandLine(registry: Registry, def: AnyCommand, args: Record<string, string>): string {
  const pos = registry.positional(def);
  const parts = [`/rln ${def.path}`];
  let positionalOk = true;
  for (const p of pos) {
    if (positionalOk && args[p] !== undefined) parts.push(quoteValue(args[p]));
    else positionalOk = false;
  }
  for (const [k, v] of Object.entries(args)) {
    if (positionalOk && pos.includes(k)) continue;
    if (!positionalOk && pos.includes(k) && parts.includes(quoteValue(v))) continue;
    parts.push(`${k}=${quoteValue(v)}`);
  }
  return parts.join(' ');
}

/** `5 minutes`, `30 seconds`. */
export function ttlText(ms: number): string {
  if (ms >= 60_000) {
    const m = Math.round(ms / 60_000);
    return `${m} minute${m === 1 ? '' : 's'}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? '' : 's'}`;
}
