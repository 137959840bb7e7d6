/**
 * What the node lifecycle commands ask privately: passwords (new ones typed twice) and, for `node init
 * … recover=true`, an existing mnemonic. The checks run on the dialog's values and never put a typed
 * value in their messages.
 */
import { UserError } from '../../src/vocabulary/index.js';
import { BIP39_ENGLISH_WORDS } from '../../src/bip39-words.js';
import type { CommandContext } from '../define-command.js';

/** The node's own rule (RLN refuses shorter passwords): checked in the dialog, before anything runs. */
export const MIN_PASSWORD = 8;

export const passwordField = { name: 'password', label: 'Node password', kind: 'secret' as const, required: true };

export function needSecret(ctx: CommandContext<unknown>, name: string, what: string): string {
  const v = ctx.secrets[name];
  if (!v) throw new UserError('invalid_arguments', `The ${what} was not entered.`, 'Run the command again and fill in the private dialog.');
  return v;
}

/**
 * The dialog's field errors for a new password: at least 8 characters, and typed twice the same
 * (a typo in the only copy would lock the node for good). Either error is put on both fields, so that
 * both are asked again: a repeat is never compared with a password typed before it.
 */
export function newPasswordErrors(values: Record<string, string>, field: string, repeat: string): Record<string, string> {
  const pw = values[field] ?? '';
  if (pw && pw.length < MIN_PASSWORD) {
    return {
      [field]: `The password must have at least ${MIN_PASSWORD} characters; this one has ${pw.length}.`,
      [repeat]: 'Type the new password again, here too.',
    };
  }
  if (pw && (values[repeat] ?? '') !== pw) {
    return {
      [field]: 'The two new passwords differ: type the new password again.',
      [repeat]: 'The two new passwords differ: type the same password here.',
    };
  }
  return {};
}

/** BIP-39's word counts. */
const WORD_COUNTS = [12, 15, 18, 21, 24];

/** A mnemonic as the node takes it: lower case, one space between words. */
export const normalMnemonic = (text: string): string => text.trim().toLowerCase().split(/\s+/).join(' ');

/**
 * Why a typed mnemonic cannot be a wallet's (a word count BIP-39 does not have, a word not in its
 * English list), by the position of a word and never the word itself; undefined when it can.
 */
export function mnemonicError(text: string | undefined): string | undefined {
  if (text === undefined || !text.trim()) return undefined;
  const words = normalMnemonic(text).split(' ');
  if (!WORD_COUNTS.includes(words.length))
    return `A mnemonic has 12, 15, 18, 21 or 24 words; this one has ${words.length}. Type every word, separated by spaces.`;
  const bad = words.map((w, i) => (BIP39_ENGLISH_WORDS.has(w) ? 0 : i + 1)).filter(Boolean);
  if (bad.length)
    return `Word${bad.length > 1 ? 's' : ''} ${bad.join(', ')} ${bad.length > 1 ? 'are' : 'is'} not in the BIP-39 English word list: check the spelling.`;
  return undefined;
}
