/**
 * The pipeline's order (docs/ARCHITECTURE.md, "The pipeline's order"): validate, resolve the node, role, state check, dialog,
 * confirmation, ..., execute, audit, the same for a typed command, a click and a dialog
 * submission; the first refusal ends the attempt.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, type Reply } from '../../src/engine/types.js';
import { createRegistry } from '../../src/engine/registry.js';
import { OPEN_DIALOG_COMMAND, STEPS } from '../../src/engine/index.js';
import { openDatabase } from '../../src/store/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { fakeHosting, slackChannel, slackUser } from '../support/core.js';

const reader = slackUser('UREAD');
const ops = slackUser('UOPS');
const admin = slackUser('UADMIN');

function setup(opts: { dialogBudgetMs?: number } = {}) {
  const world = { refuse: false, gate: Promise.resolve() as Promise<unknown>, checks: [] as string[], ran: [] as string[] };
  const check = async (ctx: { node?: { name: string; status: string } }) => {
    world.checks.push(ctx.node!.name);
    await world.gate;
    if (world.refuse || ctx.node!.status === 'PAUSED')
      return { reason: `${ctx.node!.name} is stopped.`, next: `Start it with \`/rln node start ${ctx.node!.name}\`.` };
    return undefined;
  };
  const registry = createRegistry([
    defineCommand({
      path: 'node drain',
      summary: 'Drain a node',
      example: '/rln node drain alice',
      args: z.object({ node: z.string().min(1).describe('Node') }),
      role: 'operate',
      confirm: 'button',
      mutates: true,
      check,
      handler: async (ctx) => {
        world.ran.push(`drain ${ctx.node!.name}`);
        return { header: `Drained ${ctx.node!.name}`, blocks: [] };
      },
    }),
    defineCommand({
      path: 'node seal',
      summary: 'Seal a node',
      example: '/rln node seal alice',
      args: z.object({ node: z.string().min(1).describe('Node') }),
      role: 'admin',
      confirm: 'none',
      secrets: [{ name: 'password', label: 'Node password', kind: 'secret' }],
      mutates: true,
      check,
      handler: async (ctx) => {
        world.ran.push(`seal ${ctx.node!.name}`);
        return { header: `Sealed ${ctx.node!.name}`, blocks: [] };
      },
    }),
  ]);
  const clock = { t: Date.parse('2026-11-22T10:00:00Z') };
  const d = testDispatcher({
    db: openDatabase(':memory:'),
    registry,
    services: { hosting: fakeHosting() as any, nodeApi: () => ({}) as any },
    admins: ['slack:UADMIN'],
    operators: ['slack:UOPS'],
    now: () => clock.t,
    dialogBudgetMs: opts.dialogBudgetMs,
  });
  const typed = (actor: typeof reader, text: string) => d.dispatch({ via: 'typed', actor, place: slackChannel, text });
  const click = async (actor: typeof reader, command: string, args: Record<string, string>) => {
    const id = (await d.prepareMessage({ blocks: [], buttons: [{ label: 'Go', command, args }] })).buttons![0].id!;
    return d.dispatch({ via: 'button', actor, place: slackChannel, buttonId: id });
  };
  const grant = (principal: string, role: 'admin' | 'operate') => d.roles.grant(principal, role, admin);
  return { d, world, typed, click, grant };
}

const header = (r: Reply) => (r.kind === 'message' ? r.message.header : r.kind);
const buttons = (r: Reply) => (r.kind === 'message' ? (r.message.buttons ?? []).map((b) => b.label) : []);

describe('the pipeline', () => {
  it('has the eleven steps of the design, in its order', () => {
    expect(STEPS.map(([name]) => name)).toEqual([
      'refuse inline secret',
      'validate',
      'resolve node',
      'role',
      'state check',
      'dialog',
      'spend limit',
      'confirmation',
      'approval',
      'execute',
      'audit',
    ]);
  });

  for (const via of ['typed', 'clicked'] as const) {
    it(`checks arguments, then the node, then the role, then the state, then confirms, when ${via}`, async () => {
      const { world, typed, click } = setup();
      const run = (actor: typeof reader, args: Record<string, string>) =>
        via === 'typed'
          ? typed(
              actor,
              `node drain ${Object.entries(args)
                .map(([k, v]) => `${k}=${v}`)
                .join(' ')}`,
            )
          : click(actor, 'node drain', args);
      expect(header(await run(reader, { node: 'nobody', colour: 'red' }))).toBe('Invalid arguments');
      expect(header(await run(reader, { node: 'nobody' }))).toBe('Unknown node');
      expect(header(await run(reader, { node: 'bob' }))).toBe('Not allowed');
      expect(world.checks).toEqual([]);
      const refused = await run(ops, { node: 'bob' });
      expect(header(refused)).toBe('Not now');
      expect(buttons(refused)).toEqual([]);
      expect(world.checks).toEqual(['bob']);
      const asked = await run(ops, { node: 'alice' });
      expect(buttons(asked)).toEqual(['Confirm', 'Cancel']);
      expect(world.ran).toEqual([]);
    });
  }

  it('a state refusal ends the attempt: nothing is confirmed, run or offered, and the refusal is audited with its reason', async () => {
    const { d, world, typed } = setup();
    const r = await typed(ops, 'node drain bob');
    expect(r.kind === 'message' && r.visibility).toBe('private');
    expect(buttons(r)).toEqual([]);
    expect(world.ran).toEqual([]);
    expect((await d.audit.latest({ node: 'bob', limit: 1 }))[0]).toMatchObject({
      path: 'node drain',
      outcome: 'refused',
      reason: expect.stringContaining('bob is stopped'),
    });
  });

  it('checks the state again at the Confirm click, and refuses if it changed', async () => {
    const { world, typed, d } = setup();
    const asked = await typed(ops, 'node drain alice');
    const confirm = asked.kind === 'message' ? asked.message.buttons!.find((b) => b.label === 'Confirm')!.id! : '';
    world.refuse = true;
    const r = await d.dispatch({ via: 'button', actor: ops, place: slackChannel, buttonId: confirm });
    expect(header(r)).toBe('Not now');
    expect(world.ran).toEqual([]);
  });

  it('never shows a dialog to a user without the role: typed, clicked, or from the button of a late check', async () => {
    const { world, typed, click } = setup();
    for (const r of [
      await typed(ops, 'node seal alice'),
      await click(ops, 'node seal', { node: 'alice' }),
      await click(ops, OPEN_DIALOG_COMMAND, { path: 'node seal', args: JSON.stringify({ node: 'alice' }) }),
    ]) {
      expect(r.kind).toBe('message');
      expect(header(r)).toBe('Not allowed');
    }
    expect(world.checks).toEqual([]);
  });

  it('at a dialog submission, checks the role before the state, and the state before the fields', async () => {
    const { d, world, typed, grant } = setup();
    await grant('slack:UREAD', 'admin');
    const open = await typed(reader, 'node seal alice');
    expect(open.kind).toBe('dialog');
    const dialogId = open.kind === 'dialog' ? open.dialog.id : '';
    world.refuse = true;
    await d.roles.revoke('slack:UREAD');
    const submit = () => d.dispatch({ via: 'dialog', actor: reader, place: slackChannel, dialogId, values: {} });
    expect(header(await submit())).toBe('Not allowed');
    await grant('slack:UREAD', 'admin');
    // The password is missing too, but the state is refused first.
    expect(header(await submit())).toBe('Not now');
    world.refuse = false;
    expect((await submit()).kind).toBe('dialog_errors');
    const done = await d.dispatch({
      via: 'dialog',
      actor: reader,
      place: slackChannel,
      dialogId,
      values: { password: 'correct horse battery' },
    });
    expect(header(done)).toBe('Sealed alice');
    expect(world.ran).toEqual(['seal alice']);
  });

  it('answers a state check too slow for a dialog with a button that opens it, and checks at the submission', async () => {
    const { d, world, typed } = setup({ dialogBudgetMs: 0 });
    let release!: () => void;
    world.gate = new Promise<void>((r) => (release = r));
    const late = await typed(admin, 'node seal alice');
    expect(late.kind === 'message' && late.visibility).toBe('private');
    expect(buttons(late)).toEqual(['Open the dialog']);
    const open = await d.dispatch({
      via: 'button',
      actor: admin,
      place: slackChannel,
      buttonId: (late as Extract<Reply, { kind: 'message' }>).message.buttons![0].id!,
    });
    expect(open.kind).toBe('dialog');
    expect(world.checks).toEqual(['alice']);
    release();
    world.refuse = true;
    const dialogId = open.kind === 'dialog' ? open.dialog.id : '';
    const refused = await d.dispatch({
      via: 'dialog',
      actor: admin,
      place: slackChannel,
      dialogId,
      values: { password: 'correct horse battery' },
    });
    expect(header(refused)).toBe('Not now');
    expect(world.checks).toEqual(['alice', 'alice']);
    expect(world.ran).toEqual([]);
  });

  it("shares the looking steps' reads within one attempt, and gives the handler none", async () => {
    let asked = 0;
    // A read as a command would make it: once per attempt when the context has `reads`, else each time.
    const read = (ctx: { reads?: Map<string, Promise<unknown>> }) => {
      const had = ctx.reads?.get('facts');
      if (had) return had;
      const p = Promise.resolve(++asked);
      ctx.reads?.set('facts', p);
      return p;
    };
    const seen: unknown[] = [];
    const d = testDispatcher({
      db: openDatabase(':memory:'),
      registry: createRegistry([
        defineCommand({
          path: 'node look',
          summary: 'Look at a node twice, then act',
          example: '/rln node look alice',
          args: z.object({ node: z.string().min(1).describe('Node') }),
          role: 'operate',
          confirm: 'none',
          mutates: false,
          check: async (ctx) => {
            seen.push(await read(ctx), await read(ctx));
            return undefined;
          },
          handler: async (ctx) => {
            seen.push(await read(ctx));
            return { header: 'Looked', blocks: [] };
          },
        }),
      ]),
      services: { hosting: fakeHosting() as any, nodeApi: () => ({}) as any },
      operators: ['slack:UOPS'],
    });
    const look = () => d.dispatch({ via: 'typed', actor: ops, place: slackChannel, text: 'node look alice' });
    expect(header(await look())).toBe('Looked');
    // The check's two reads are one; the handler reads afresh.
    expect(seen).toEqual([1, 1, 2]);
    // A new attempt reads again.
    expect(header(await look())).toBe('Looked');
    expect(seen).toEqual([1, 1, 2, 3, 3, 4]);
  });
});
