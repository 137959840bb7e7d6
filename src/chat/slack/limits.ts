/**
 * Slack's Block Kit limits, by name. A renderer that would exceed one either throws
 * (an id that cannot be shortened without breaking it) or truncates visibly ("… 12 more rows").
 * https://api.slack.com/reference/block-kit
 */
export const SLACK_MAX_BLOCKS = 50;
/**
 * The text of all a message's blocks together. Slack refuses chat.postMessage with
 * `msg_blocks_too_long` at roughly 12,000 characters in total even when every block is within
 * its own limit; this keeps a margin below that. Past it the renderer summarises the rest.
 */
export const SLACK_MAX_MESSAGE_TEXT = 10_000;
export const SLACK_MAX_MODAL_BLOCKS = 100;
export const SLACK_MAX_SECTION_TEXT = 3000;
export const SLACK_MAX_FIELDS_PER_SECTION = 10;
export const SLACK_MAX_FIELD_TEXT = 2000;
export const SLACK_MAX_HEADER_TEXT = 150;
export const SLACK_MAX_CONTEXT_ELEMENTS = 10;
export const SLACK_MAX_CONTEXT_TEXT = 3000;
export const SLACK_MAX_ACTIONS_ELEMENTS = 25;
export const SLACK_MAX_BUTTON_TEXT = 75;
export const SLACK_MAX_ACTION_ID = 255;
export const SLACK_MAX_BLOCK_ID = 255;
export const SLACK_MAX_BUTTON_VALUE = 2000;
export const SLACK_MAX_FALLBACK_TEXT = 3000;
export const SLACK_MAX_MODAL_TITLE = 24;
export const SLACK_MAX_MODAL_BUTTON = 24;
export const SLACK_MAX_CALLBACK_ID = 255;
export const SLACK_MAX_PRIVATE_METADATA = 3000;
export const SLACK_MAX_INPUT_LABEL = 2000;
export const SLACK_MAX_INPUT_HINT = 2000;
export const SLACK_MAX_PLACEHOLDER = 150;
/** `response_action: errors` messages are kept this short (ellipsis when cut), so they fit under the input. */
export const SLACK_MAX_INPUT_ERROR = 150;
export const SLACK_MAX_OPTIONS = 100;
export const SLACK_MAX_OPTION_TEXT = 75;
export const SLACK_MAX_OPTION_VALUE = 150;
/** Table cells are cut to this width so a monospace table stays readable. */
export const SLACK_TABLE_MAX_CELL = 40;
/** A table may span this many sections before the rest is summarised (the monospace fallback). */
export const SLACK_TABLE_MAX_SECTIONS = 3;
/**
 * The native `table` block (https://docs.slack.dev/reference/block-kit/blocks/table-block):
 * at most 100 rows (the header row included) of at most 20 cells, and one table per message.
 */
export const SLACK_TABLE_BLOCK_MAX_ROWS = 100;
export const SLACK_TABLE_BLOCK_MAX_COLUMNS = 20;
/** Native tables (`table` and `data_table` together) one message may carry. */
export const SLACK_MAX_TABLES_PER_MESSAGE = 1;
/**
 * The native `data_table` block (https://docs.slack.dev/reference/block-kit/blocks/data-table-block):
 * a header row and 1–100 rows, 1–20 columns, every row as long; Slack pages it (`page_size` 1–100).
 * The cells of one table, and of one message, hold at most 10,000 characters together.
 */
export const SLACK_DATA_TABLE_MAX_ROWS = 100;
export const SLACK_DATA_TABLE_MAX_PAGE_SIZE = 100;
export const SLACK_TABLE_MAX_CELL_CHARS = 10_000;
/**
 * Rows a plain `table` block shows; a longer table becomes a `data_table` that Slack pages this
 * many rows at a time, so a long list does not flood the channel.
 */
export const SLACK_TABLE_ROWS_BEFORE_PAGING = 20;
