import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, type CommandSpec } from '../../src/engine/types.js';

const base = { summary: 's', args: z.object({}), handler: async () => ({ blocks: [] }) };

describe('defineCommand', () => {
  it('gives a read command no confirmation and no mutation when it does not say', () => {
    const def = defineCommand({ ...base, path: 'thing list', example: '/rln thing list', role: 'read' });
    expect(def.confirm).toBe('none');
    expect(def.mutates).toBe(false);
  });

  it('keeps what a read command declares, and the rest of its definition', () => {
    const handler = async () => ({ blocks: [] });
    const def = defineCommand({
      ...base,
      handler,
      path: 'thing info',
      example: '/rln thing info',
      role: 'read',
      confirm: 'none',
      mutates: false,
    });
    expect(def).toMatchObject({ path: 'thing info', role: 'read', confirm: 'none', mutates: false, handler });
  });

  it('keeps what an operate or admin command declares', () => {
    const operate = defineCommand({
      ...base,
      path: 'thing sign',
      example: '/rln thing sign',
      role: 'operate',
      confirm: 'none',
      mutates: false,
    });
    expect([operate.confirm, operate.mutates]).toEqual(['none', false]);
    const admin = defineCommand({
      ...base,
      path: 'thing drop',
      example: '/rln thing drop',
      role: 'admin',
      confirm: 'typed-name',
      mutates: true,
    });
    expect([admin.confirm, admin.mutates]).toEqual(['typed-name', true]);
  });

  it('refuses an operate or admin command that does not say how it is confirmed or whether it mutates', () => {
    // @ts-expect-error an operate command declares confirm and mutates
    const noConfirm: CommandSpec = { ...base, path: 'thing stop', example: '/rln thing stop', role: 'operate', mutates: true };
    expect(() => defineCommand(noConfirm)).toThrow(/thing stop.*confirm, mutates/);
    // @ts-expect-error an admin command declares confirm and mutates
    const noMutates: CommandSpec = { ...base, path: 'thing drop', example: '/rln thing drop', role: 'admin', confirm: 'button' };
    expect(() => defineCommand(noMutates)).toThrow(/thing drop/);
  });
});
