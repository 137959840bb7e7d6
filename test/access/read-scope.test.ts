/**
 * Where a scoped grant lets its holder read, with and without READ_USERS (docs/configuration.md):
 * through the dispatcher, on a real database, with the fake service's nodes alice and bob. A grant
 * scoped to some nodes reads those nodes only, whatever READ_USERS says; a read naming no node
 * (node list) is account-wide; READ_USERS decides for people with no grant.
 */
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/engine/registry.js';
import { fakeCommands, fakeHosting, slackChannel, slackUser, type Calls } from '../support/core.js';
import { testDispatcher } from '../support/dispatcher.js';
import { replyText } from '../support/reply-text.js';

const admin = slackUser('UADMIN');

function bot(readers: string[]) {
  const calls: Calls = { stop: [], info: [], unlock: [], destroy: [] };
  const d = testDispatcher({
    registry: createRegistry(fakeCommands(calls)),
    services: { hosting: fakeHosting() as never, nodeApi: () => ({}) as never },
    admins: ['slack:UADMIN'],
    readers,
  });
  const run = async (who: string, line: string) =>
    replyText(await d.dispatch({ via: 'typed', actor: slackUser(who), place: slackChannel, text: line }));
  return { run, grant: (line: string) => d.dispatch({ via: 'typed', actor: admin, place: slackChannel, text: line }) };
}

describe('reading under a scoped grant', () => {
  for (const readers of [[], ['slack:UREAD']]) {
    const label = readers.length ? 'with READ_USERS set' : 'without READ_USERS';

    it(`${label}: a read grant on alice reads alice only; node list stays readable`, async () => {
      const { run, grant } = bot(readers);
      await grant('/rln access grant slack:USCOPED read nodes=alice');
      expect(await run('USCOPED', 'node info alice')).toContain('Node alice');
      const refused = await run('USCOPED', 'node info bob');
      expect(refused).not.toContain('Node bob');
      expect(refused).toContain('limited to nodes=alice');
      expect(await run('USCOPED', 'node list')).toContain('Nodes');
    });

    it(`${label}: an operate grant on alice does not read bob either`, async () => {
      const { run, grant } = bot(readers);
      await grant('/rln access grant slack:UOPS operator nodes=alice');
      expect(await run('UOPS', 'node info alice')).toContain('Node alice');
      expect(await run('UOPS', 'node info bob')).toContain('limited to nodes=alice');
    });

    it(`${label}: a channel-scoped read grant reads in that channel only`, async () => {
      const { run, grant } = bot(readers);
      await grant(`/rln access grant slack:UCHAN read channels=COTHER`);
      expect(await run('UCHAN', 'node list')).not.toContain('Nodes');
    });

    it(`${label}: people with no grant read as READ_USERS says; those it lists, and admins, read everywhere`, async () => {
      const { run } = bot(readers);
      const stranger = await run('USTRANGER', 'node info bob');
      if (readers.length) expect(stranger).toContain('needs the read role');
      else expect(stranger).toContain('Node bob');
      if (readers.length) expect(await run('UREAD', 'node info bob')).toContain('Node bob');
      expect(await run('UADMIN', 'node info bob')).toContain('Node bob');
    });
  }
});
