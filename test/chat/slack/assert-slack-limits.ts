/** Checks a rendered message or modal against Slack's Block Kit limits; throws naming the breach. */
import {
  SLACK_MAX_ACTIONS_ELEMENTS,
  SLACK_MAX_ACTION_ID,
  SLACK_MAX_BLOCKS,
  SLACK_MAX_BUTTON_TEXT,
  SLACK_MAX_BUTTON_VALUE,
  SLACK_MAX_CALLBACK_ID,
  SLACK_MAX_CONTEXT_ELEMENTS,
  SLACK_MAX_CONTEXT_TEXT,
  SLACK_MAX_FALLBACK_TEXT,
  SLACK_MAX_FIELDS_PER_SECTION,
  SLACK_MAX_FIELD_TEXT,
  SLACK_MAX_HEADER_TEXT,
  SLACK_MAX_MODAL_BLOCKS,
  SLACK_MAX_MODAL_TITLE,
  SLACK_MAX_MODAL_BUTTON,
  SLACK_MAX_PRIVATE_METADATA,
  SLACK_MAX_SECTION_TEXT,
  allBlocks,
  type BlockKitMessage,
} from '../../../src/chat/slack/index.js';
import { messageTableProblems, tableBlockProblems } from '../../fakes/slack/table-blocks.js';

function fail(what: string): never {
  throw new Error(`Slack limit broken: ${what}`);
}

export function assertBlockLimits(blocks: Array<Record<string, any>>, maxBlocks = SLACK_MAX_BLOCKS): void {
  if (blocks.length > maxBlocks) fail(`${blocks.length} blocks > ${maxBlocks}`);
  for (const b of blocks) {
    switch (b.type) {
      case 'header':
        if (b.text.type !== 'plain_text') fail('header must be plain_text');
        if (b.text.text.length > SLACK_MAX_HEADER_TEXT) fail(`header ${b.text.text.length} chars`);
        break;
      case 'section':
        if (!b.text && !b.fields) fail('section without text or fields');
        if (b.text && b.text.text.length > SLACK_MAX_SECTION_TEXT) fail(`section text ${b.text.text.length} chars`);
        if (b.text && b.text.text.length === 0) fail('empty section text');
        if (b.fields) {
          if (b.fields.length > SLACK_MAX_FIELDS_PER_SECTION) fail(`${b.fields.length} fields in a section`);
          for (const f of b.fields) if (f.text.length > SLACK_MAX_FIELD_TEXT) fail(`field ${f.text.length} chars`);
        }
        break;
      case 'context':
        if (b.elements.length > SLACK_MAX_CONTEXT_ELEMENTS) fail(`${b.elements.length} context elements`);
        for (const e of b.elements) if (e.text.length > SLACK_MAX_CONTEXT_TEXT) fail(`context ${e.text.length} chars`);
        break;
      case 'actions':
        if (b.elements.length > SLACK_MAX_ACTIONS_ELEMENTS) fail(`${b.elements.length} elements in actions`);
        for (const e of b.elements) {
          if (!e.action_id || e.action_id.length > SLACK_MAX_ACTION_ID) fail(`action_id ${e.action_id}`);
          if (e.value && e.value.length > SLACK_MAX_BUTTON_VALUE) fail('button value too long');
          if (e.text.text.length > SLACK_MAX_BUTTON_TEXT) fail('button text too long');
        }
        break;
      case 'divider':
      case 'input':
        break;
      case 'table':
      case 'data_table': {
        const problems = tableBlockProblems(b);
        if (problems.length) fail(problems.join('; '));
        break;
      }
      default:
        fail(`unknown block type ${b.type}`);
    }
  }
}

export function assertSlackLimits(m: BlockKitMessage): void {
  if (m.text.length > SLACK_MAX_FALLBACK_TEXT) fail('fallback text too long');
  if (m.attachments && m.attachments.length !== 1) fail('one attachment expected');
  assertBlockLimits(allBlocks(m));
  const tables = messageTableProblems(m);
  if (tables.length) fail(tables.join('; '));
}

export function assertModalLimits(view: Record<string, any>): void {
  if (view.type !== 'modal') fail('not a modal');
  if (view.title.text.length > SLACK_MAX_MODAL_TITLE) fail('modal title too long');
  if (view.submit.text.length > SLACK_MAX_MODAL_BUTTON) fail('submit label too long');
  if (view.callback_id.length > SLACK_MAX_CALLBACK_ID) fail('callback_id too long');
  if ((view.private_metadata ?? '').length > SLACK_MAX_PRIVATE_METADATA) fail('private_metadata too long');
  assertBlockLimits(view.blocks, SLACK_MAX_MODAL_BLOCKS);
}
