/**
 * Dialog -> a Slack modal view for views.open. callback_id is the stored dialog id, each
 * field is one input block whose block_id and action_id are the field name, and
 * private_metadata carries where the answer goes (the channel the command was typed in).
 *
 * Slack has no masked text input: a secret field is a plain_text_input inside this private
 * modal (only the user sees it); its value is never echoed, logged or stored by the adapter.
 */
import type { Dialog, DialogField } from '../../engine/index.js';
import { escapeMrkdwn } from './escape-mrkdwn.js';
import { cutText } from '../../vocabulary/index.js';
import {
  SLACK_MAX_BLOCK_ID,
  SLACK_MAX_CALLBACK_ID,
  SLACK_MAX_INPUT_HINT,
  SLACK_MAX_INPUT_LABEL,
  SLACK_MAX_MODAL_BLOCKS,
  SLACK_MAX_MODAL_BUTTON,
  SLACK_MAX_MODAL_TITLE,
  SLACK_MAX_OPTION_TEXT,
  SLACK_MAX_OPTION_VALUE,
  SLACK_MAX_PLACEHOLDER,
  SLACK_MAX_PRIVATE_METADATA,
  SLACK_MAX_SECTION_TEXT,
} from './limits.js';

/** Where a modal's answer goes: kept in the view's private_metadata. */
export interface ModalOrigin {
  channelId: string;
  threadId?: string;
  workspaceId?: string;
}

/** A field with this name asks for a node: an external select served by app.options. */
export const NODE_FIELD = 'node';

class ModalRenderError extends Error {
  override readonly name = 'SlackRenderError';
}

const plain = (text: string, max: number) => ({ type: 'plain_text', text: cut(text, max), emoji: true });
function cut(text: string, max: number): string {
  return cutText(text, max);
}

function inputBlock(f: DialogField): Record<string, unknown> {
  let element: Record<string, unknown>;
  if (f.kind === 'checkbox') {
    const option = { text: plain(f.label, SLACK_MAX_OPTION_TEXT), value: 'true' };
    element = { type: 'checkboxes', action_id: f.name, options: [option] };
    if (f.initial === 'true') element.initial_options = [option];
  } else if (f.kind === 'text' && f.name === NODE_FIELD) {
    element = { type: 'external_select', action_id: f.name, min_query_length: 0 };
    // A value cannot be cut: a name too long for an option is left for the user to pick.
    if (f.initial && f.initial.length <= SLACK_MAX_OPTION_VALUE)
      element.initial_option = { text: plain(f.initial, SLACK_MAX_OPTION_TEXT), value: f.initial };
  } else {
    element = { type: 'plain_text_input', action_id: f.name };
    if (f.initial && f.kind !== 'secret') element.initial_value = f.initial;
    if (f.minLength) element.min_length = f.minLength;
  }
  if (f.placeholder && element.type !== 'checkboxes') element.placeholder = plain(f.placeholder, SLACK_MAX_PLACEHOLDER);
  const block: Record<string, unknown> = {
    type: 'input',
    block_id: f.name,
    label: plain(f.label, SLACK_MAX_INPUT_LABEL),
    element,
    // A checkbox left unticked is a valid answer.
    optional: f.kind === 'checkbox' ? true : f.required === false,
  };
  if (f.hint) block.hint = plain(f.hint, SLACK_MAX_INPUT_HINT);
  return block;
}

export function dialogToModal(dialog: Dialog, origin?: ModalOrigin): Record<string, unknown> {
  if (!dialog.id || dialog.id.length > SLACK_MAX_CALLBACK_ID) {
    throw new ModalRenderError(`dialog id must be 1..${SLACK_MAX_CALLBACK_ID} characters (got ${dialog.id?.length ?? 0})`);
  }
  const names = new Set<string>();
  for (const f of dialog.fields) {
    if (!f.name || f.name.length > SLACK_MAX_BLOCK_ID || names.has(f.name))
      throw new ModalRenderError(`dialog field name "${f.name}" is empty, too long or repeated`);
    names.add(f.name);
  }
  const blocks: Record<string, unknown>[] = [];
  if (dialog.intro?.trim()) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(escapeMrkdwn(dialog.intro), SLACK_MAX_SECTION_TEXT) } });
  }
  blocks.push(...dialog.fields.map(inputBlock));
  if (blocks.length > SLACK_MAX_MODAL_BLOCKS)
    throw new ModalRenderError(`dialog has ${blocks.length} blocks, over ${SLACK_MAX_MODAL_BLOCKS}`);
  const view: Record<string, unknown> = {
    type: 'modal',
    callback_id: dialog.id,
    title: plain(dialog.title, SLACK_MAX_MODAL_TITLE),
    submit: plain(dialog.submitLabel || 'Submit', SLACK_MAX_MODAL_BUTTON),
    close: plain('Cancel', SLACK_MAX_MODAL_BUTTON),
    blocks,
  };
  if (origin) {
    const meta = JSON.stringify({ c: origin.channelId, t: origin.threadId, w: origin.workspaceId });
    if (meta.length > SLACK_MAX_PRIVATE_METADATA) throw new ModalRenderError('private_metadata too long');
    view.private_metadata = meta;
  }
  return view;
}

/** Reads the origin back from a submitted view's private_metadata. */
export function readModalOrigin(privateMetadata: string | undefined): ModalOrigin | undefined {
  if (!privateMetadata) return undefined;
  try {
    const m = JSON.parse(privateMetadata) as { c?: unknown; t?: unknown; w?: unknown };
    if (typeof m.c !== 'string') return undefined;
    return {
      channelId: m.c,
      threadId: typeof m.t === 'string' ? m.t : undefined,
      workspaceId: typeof m.w === 'string' ? m.w : undefined,
    };
  } catch {
    return undefined;
  }
}
