export { createShellAdapter, SHELL_ACTOR, SHELL_PLACE, type ShellAdapter, type ShellAdapterOptions } from './create-shell-adapter.js';
export { renderText, renderTable, clickHint, displayWidth, TONE_MARKERS } from './render-text.js';
