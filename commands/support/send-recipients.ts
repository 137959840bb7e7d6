/**
 * The recipients of `asset send`: one, or several in one transfer (on an image with `/sendrgb`), each
 * with its amount. Several are split by ";" (or spaces): a recipient id or an RGB invoice holds neither,
 * while an invoice's endpoints may hold commas. Amounts go in the same order, one per recipient.
 */
import { UserError } from '../../src/vocabulary/index.js';

export interface TypedSend {
  recipient: string;
  amount: string;
}

const parts = (text: string, re: RegExp) =>
  text
    .split(re)
    .map((s) => s.trim())
    .filter(Boolean);

/** The recipients with their amounts as typed; refused when the counts differ or a recipient repeats. */
export function typedSends(a: { amount: string; recipient_id: string }): TypedSend[] {
  const recipients = parts(a.recipient_id, /[;\s]+/);
  const amounts = parts(a.amount, /;/);
  if (recipients.length === 0)
    throw new UserError('invalid_arguments', '`recipient_id` names no recipient.', 'Give a recipient id or an RGB invoice.');
  if (amounts.length !== recipients.length) {
    throw new UserError(
      'invalid_arguments',
      `${recipients.length} recipient(s) but ${amounts.length} amount(s): each recipient needs its own amount.`,
      'Give the amounts in the recipients’ order, split by ";": `amount="10; 5" recipient_id="rgb:…; rgb:…"`.',
    );
  }
  if (new Set(recipients).size !== recipients.length) {
    throw new UserError('invalid_arguments', 'The same recipient is given twice.', 'Name each recipient once, with the sum for it.');
  }
  return recipients.map((recipient, i) => ({ recipient, amount: amounts[i] }));
}
