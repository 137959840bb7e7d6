/**
 * A cron expression in words, with its zone: "every day at 09:00 Europe/Berlin". cronstrue
 * does the reading (every field, ranges, steps, seconds); this only says "every day" where it
 * leaves it implicit and adds the zone.
 */
import cronstrue from 'cronstrue';

export function describeCron(expression: string, timeZone: string): string {
  let text: string;
  try {
    text = cronstrue.toString(expression, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return `${expression} (${timeZone})`;
  }
  const fields = expression.trim().split(/\s+/);
  const [dom, month, dow] = fields.slice(-3);
  const everyDay = dom === '*' && month === '*' && (dow === '*' || dow === '?');
  text = text.charAt(0).toLowerCase() + text.slice(1);
  if (everyDay && /^at [\d:]+$/.test(text)) text = `every day ${text}`;
  return /\d\d:\d\d(:\d\d)?$/.test(text) ? `${text} ${timeZone}` : `${text} (${timeZone})`;
}
