/**
 * The terminal adapter: reads `/rln ...` lines (the prefix is optional), prints plain-text
 * answers, and answers dialogs by prompting each field. It acts as the local admin
 * (`shell:local`). `click <id>`, `confirm <id>` and `cancel <id>` click a button.
 * `/as <role> [name]` acts as `shell:<name>` with that role (so a second person can approve in
 * the demo); `/demo fail <node>` makes a demo node fail, when the demo offers it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { ChatPoster } from '../../vocabulary/index.js';
import type { Actor, Place, Role } from '../../vocabulary/index.js';
import type { Dialog, DialogField, Dispatcher, Reply } from '../../engine/index.js';
import { fileBytes, type Message } from '../../vocabulary/index.js';
import { checkboxValue } from '../../engine/index.js';
import { stripPrefix } from '../../engine/index.js';
import { renderText } from './render-text.js';
import { WORKING_AFTER_MS, withWorkingLine } from './working-line.js';

export const SHELL_ACTOR: Actor = { platform: 'shell', userId: 'local', displayName: 'local' };
export const SHELL_PLACE: Place = { platform: 'shell', channelId: 'terminal' };

export interface ShellAdapterOptions {
  dispatcher: Dispatcher;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Print `rln> ` before each command. Default: when input is a TTY. */
  prompt?: boolean;
  /** Stores the role `/as` gives a shell principal (the dispatcher's role service). Without it, `/as` is not offered. */
  roles?: {
    grant(principal: string, role: Role, by: Actor): Promise<void>;
    list(): Promise<Array<{ principal: string; role: Role; source: string; scope?: { nodes?: string[]; channels?: string[] } }>>;
  };
  /** Demo only: makes a node fail (`/demo fail <node>`) or injects a fault (`/demo <fault> <node>`); answers what happened. */
  demo?: { fail(node: string): Promise<string>; inject(fault: string, node: string): Promise<string>; help(): string };
  /** Where the files of a message (charts, QR codes, logs) are written. Default: <tmp>/rln-chatops-files. */
  filesDir?: string;
  /** A command not answered after this long prints a "working" line (default 1 s). */
  workingAfterMs?: number;
}

/** `reader` and `operator` are accepted wherever a role is typed (docs/ARCHITECTURE.md, "Roles"). */
const ROLE_WORDS: Record<string, Role> = { read: 'read', reader: 'read', operate: 'operate', operator: 'operate', admin: 'admin' };
const AS_LINE = /^\/as(?:\s+(\S+))?(?:\s+(\S+))?\s*$/i;
const DEMO_LINE = /^\/demo(?:\s+(\S+))?(?:\s+(\S+))?\s*$/i;
/** A line that is a command, never a dialog's answer (`/rln node list` typed while a password is asked). */
const COMMAND_LINE = /^\s*\/(rln|as|demo)(\s|$)/i;

export interface ShellAdapter {
  poster: ChatPoster;
  start(): Promise<void>;
  stop(): void;
  /** Resolves when the input ends or stop() is called. */
  done: Promise<void>;
}

/** ` (optional)` after a label, unless the label already says so. */
function optionalMark(f: DialogField): string {
  return f.required !== false || /\boptional\b/i.test(f.label) ? '' : ' (optional: Enter to skip)';
}

const BUTTON_LINE = /^(click|confirm|cancel)\s+(\S+)\s*$/i;

export function createShellAdapter(opts: ShellAdapterOptions): ShellAdapter {
  const { output } = opts;
  const isTTY = Boolean((opts.input as NodeJS.ReadStream).isTTY);
  const showPrompt = opts.prompt ?? isTTY;
  /** Every dispatch: a slow one says it is working until its answer comes (P32). */
  const dispatch: Dispatcher['dispatch'] = (e) =>
    withWorkingLine(opts.dispatcher.dispatch(e), { output, isTTY, afterMs: opts.workingAfterMs ?? WORKING_AFTER_MS });

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  let rl: Interface | undefined;
  let closed = false;
  let muted = false;
  let actor: Actor = SHELL_ACTOR;
  /** Set when a command line interrupted a dialog: the dialog is cancelled and the line runs next. */
  let interrupted = false;
  /** The `rln>` prompt is shown and waits for a line: a notification printed meanwhile shows it again (P39). */
  let atPrompt = false;

  // Lines arrive in a queue; the loop and the dialog prompts take them in order.
  const queue: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  const nextLine = (): Promise<string | null> => {
    if (queue.length) return Promise.resolve(queue.shift()!);
    if (closed) return Promise.resolve(null);
    return new Promise((r) => waiting.push(r));
  };

  const write = (text: string) => {
    output.write(text.endsWith('\n') ? text : `${text}\n`);
  };

  /** A terminal cannot show a picture: each file is written out and its path printed. */
  const filesDir = opts.filesDir ?? join(tmpdir(), 'rln-chatops-files');
  let fileCounter = 0;
  const fileLines = (message: Message): string[] =>
    (message.files ?? []).map((f) => {
      try {
        mkdirSync(filesDir, { recursive: true });
        const path = join(filesDir, `${Date.now()}-${++fileCounter}-${f.name.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
        writeFileSync(path, fileBytes(f));
        return `📎 ${f.title}: ${path}`;
      } catch (e) {
        return `📎 ${f.title}: could not be written to ${filesDir} (${(e as Error).message})`;
      }
    });
  const textOf = (message: Message) => [renderText(message), ...fileLines(message)].filter(Boolean).join('\n');

  const printMessage = (message: Message, note?: string) => {
    if (note) write(note);
    write(textOf(message));
  };

  const printReply = (reply: Reply) => {
    if (reply.kind === 'message') {
      const notes = [
        reply.visibility === 'private' ? '(only you can see this)' : '',
        reply.replaceOriginal ? '(replaces the message above)' : '',
      ].filter(Boolean);
      printMessage(reply.message, notes.length ? notes.join(' ') : undefined);
    } else if (reply.kind === 'dialog_errors') {
      for (const [field, error] of Object.entries(reply.errors)) write(`✖ ${field}: ${error}`);
    }
  };

  /** Without a TTY the answer is not echoed: end the prompt line ourselves. */
  const ask = async (f: DialogField, again: boolean): Promise<string | null> => {
    const answer = await askField(f, again);
    if (!isTTY) output.write('\n');
    return answer;
  };

  /** A dialog's answer; a command line is never one: the dialog ends, nothing is submitted, and the command runs next. */
  const nextAnswer = async (): Promise<string | null> => {
    const line = await nextLine();
    if (line !== null && COMMAND_LINE.test(line)) {
      queue.unshift(line);
      interrupted = true;
      return null;
    }
    return line;
  };

  /** `again`: the field is asked again after an error, where an empty answer cancels (a box's Enter too). */
  const askField = async (f: DialogField, again: boolean): Promise<string | null> => {
    if (f.hint) write(`  ${f.hint}`);
    if (f.kind === 'checkbox') {
      const yes = f.initial === 'true';
      output.write(`${f.label} [${yes ? 'Y/n' : 'y/N'}]: `);
      const line = await nextAnswer();
      if (line === null) return null;
      if (!line.trim()) return again ? '' : yes ? 'true' : 'false';
      return checkboxValue(line);
    }
    if (f.kind === 'secret') {
      write(
        isTTY
          ? '  (local terminal: what you type is not shown, logged or sent to any chat)'
          : '  (local terminal: what you type is not logged or sent to any chat)',
      );
      output.write(`${f.label}${optionalMark(f)}: `);
      muted = isTTY;
      const line = await nextAnswer();
      muted = false;
      if (isTTY) output.write('\n');
      return line;
    }
    // A placeholder is only an example of what to type; an initial value is the default taken on Enter.
    if (f.initial) {
      output.write(`${f.label} [${f.initial}]: `);
      const line = await nextAnswer();
      return line === null ? null : line.trim() || f.initial;
    }
    output.write(`${f.label}${optionalMark(f)}${f.placeholder ? ` (e.g. ${f.placeholder})` : ''}: `);
    return nextAnswer();
  };

  const answerDialog = async (dialog: Dialog) => {
    write(`▣ ${dialog.title}`);
    if (dialog.intro) write(`  ${dialog.intro}`);
    const values: Record<string, string> = {};
    let fields = dialog.fields;
    for (let round = 0; round < 5; round++) {
      for (const f of fields) {
        // A field asked only when a box is ticked (the backup password): do not ask for a secret that will not be used.
        if (f.askedIf && values[f.askedIf] === 'false') {
          values[f.name] = '';
          continue;
        }
        const v = await ask(f, round > 0);
        if (v === null) {
          if (interrupted) {
            interrupted = false;
            write(`Cancelled: a command was typed instead of "${f.label}", so nothing was submitted. Running the command.`);
            return;
          }
          write('Cancelled: the input ended before the dialog was complete.');
          return;
        }
        // Answering again, empty cancels, as the line before the answers says (a box too: its Enter is not a No here).
        if (round > 0 && !v.trim()) {
          write('Cancelled: nothing was done.');
          return;
        }
        values[f.name] = v;
        // A box that is the confirmation, answered No: the dialog stops there, nothing asked after it.
        if (f.kind === 'checkbox' && f.confirms && v !== 'true') {
          write(`Cancelled: "${f.label}" was not confirmed, so nothing was done.`);
          return;
        }
      }
      const reply = await dispatch({ via: 'dialog', actor, place: SHELL_PLACE, dialogId: dialog.id, values });
      if (reply.kind !== 'dialog_errors') {
        if (reply.kind === 'dialog') await answerDialog(reply.dialog);
        else printReply(reply);
        return;
      }
      printReply(reply);
      write(`Answer again, or leave it empty to cancel (${dialog.submitLabel} is not done yet).`);
      fields = dialog.fields.filter((f) => f.name in reply.errors);
      if (!fields.length) return;
    }
    write('Cancelled after too many attempts: nothing was done.');
  };

  /** `/as <role> [name]`: act as `shell:<name>` with that role; `/as` alone says who you are. */
  const actAs = async (role?: string, name?: string) => {
    const who = () => `You act as shell:${actor.userId}${actor === SHELL_ACTOR ? ' (the local admin)' : ''}.`;
    if (!role) return write(`${who()} Change with /as <read|operate|admin> [name] (reader and operator work too).`);
    if (!opts.roles) return write('✖ /as is not available here.');
    const r = ROLE_WORDS[role.toLowerCase()];
    if (!r)
      return write(`✖ "${role.slice(0, 20)}" is not a role: use read, operate or admin (or reader, operator). Example: /as operator ann`);
    const userId = (name ?? (r === 'admin' ? 'local' : r)).toLowerCase();
    if (!/^[a-z0-9][a-z0-9._-]{0,31}$/.test(userId))
      return write('✖ A name is letters, digits, dots, dashes or underscores (up to 32). Example: /as operator ann');
    if (userId === 'local' && r !== 'admin') return write('✖ shell:local is always the admin: give another name. Example: /as reader ann');
    // A role someone already has (a grant, maybe scoped to some nodes) is never rewritten: /as
    // switches who you are; it grants the role only to a name that has none yet.
    const had = userId === 'local' ? undefined : (await opts.roles.list()).find((e) => e.principal === `shell:${userId}`);
    if (userId !== 'local' && !had) await opts.roles.grant(`shell:${userId}`, r, SHELL_ACTOR);
    actor = userId === 'local' ? SHELL_ACTOR : { platform: 'shell', userId, displayName: userId };
    if (!had) return write(`${who()} Role: ${r}.`);
    const where = had.scope
      ? ` on ${[had.scope.nodes?.length ? `nodes=${had.scope.nodes.join(',')}` : '', had.scope.channels?.length ? `channels=${had.scope.channels.join(',')}` : ''].filter(Boolean).join(' ')} only`
      : '';
    write(
      `${who()} Role: ${had.role}${where}, as granted (unchanged${had.role !== r || where ? `; /as does not change it: \`access grant shell:${userId} …\` does` : ''}).`,
    );
  };

  const demoCommand = async (action?: string, node?: string) => {
    if (!opts.demo) return write('✖ /demo works only in the demo (no SERVICE_URL).');
    if (!action || action.toLowerCase() === 'help' || !node) return write(opts.demo.help());
    write(action.toLowerCase() === 'fail' ? await opts.demo.fail(node) : await opts.demo.inject(action, node));
  };

  const handleLine = async (raw: string) => {
    const as = AS_LINE.exec(raw.trim());
    if (as) return actAs(as[1], as[2]);
    const demo = DEMO_LINE.exec(raw.trim());
    if (demo) return demoCommand(demo[1], demo[2]);
    const line = stripPrefix(raw);
    // `/rln` alone asks for the top-level help; an empty line does nothing.
    if (!line && /^\/?rln$/i.test(raw.trim())) {
      printReply(await dispatch({ via: 'typed', actor, place: SHELL_PLACE, text: 'help' }));
      return;
    }
    if (!line) return;
    if (/^(exit|quit)$/i.test(line)) {
      stop();
      return;
    }
    const button = BUTTON_LINE.exec(line);
    const reply = button
      ? await dispatch({ via: 'button', actor, place: SHELL_PLACE, buttonId: button[2] })
      : await dispatch({ via: 'typed', actor, place: SHELL_PLACE, text: line });
    if (reply.kind === 'dialog') await answerDialog(reply.dialog);
    else printReply(reply);
  };

  const loop = async () => {
    try {
      for (;;) {
        if (showPrompt && !closed) output.write('rln> ');
        atPrompt = showPrompt;
        const line = await nextLine();
        atPrompt = false;
        if (line === null) break;
        try {
          await handleLine(line);
        } catch (e) {
          // The dispatcher never throws; this only guards the terminal itself.
          write(`✖ Something went wrong in the terminal adapter: ${(e as Error)?.message ?? 'unknown error'}`);
        }
      }
    } finally {
      resolveDone();
    }
  };

  function stop() {
    if (closed) return;
    closed = true;
    rl?.close();
    for (const w of waiting.splice(0)) w(null);
  }

  /** A notification arrived while the prompt waited: it printed below the prompt, so the prompt comes again. */
  const promptAgain = () => {
    if (atPrompt && !closed) output.write('rln> ');
  };

  let counter = 0;
  const poster: ChatPoster = {
    platform: 'shell',
    async post(target, message) {
      const messageId = `shell-${++counter}`;
      const where = `#${target.channelId}${target.threadId ? ` (thread ${target.threadId})` : ''}`;
      write(`\n[${where} · ${messageId}]`);
      write(
        textOf(message)
          .split('\n')
          .map((l) => `│ ${l}`)
          .join('\n'),
      );
      promptAgain();
      return { messageId, threadId: target.threadId };
    },
    async update(target, message) {
      write(`\n[#${target.channelId} · ${target.messageId} updated]`);
      write(
        renderText(message)
          .split('\n')
          .map((l) => `│ ${l}`)
          .join('\n'),
      );
      promptAgain();
    },
  };

  return {
    poster,
    async start() {
      if (rl || closed) return;
      const echo = new Writable({
        write(chunk: Buffer | string, _enc, cb) {
          if (!muted) output.write(chunk);
          cb();
        },
      });
      rl = createInterface({ input: opts.input, output: isTTY ? echo : undefined, terminal: isTTY });
      rl.on('line', (line) => {
        const w = waiting.shift();
        if (w) w(line);
        else queue.push(line);
      });
      rl.on('close', () => {
        closed = true;
        for (const w of waiting.splice(0)) w(null);
      });
      if (showPrompt) write('rln-chatops terminal: you are the local admin. Type `help`, or `exit` to leave.');
      void loop();
    },
    stop,
    done,
  };
}
