import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDispatcher } from '../support/dispatcher.js';
import { watchCommands } from '../../commands/watch.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import { inlineToPlain } from '../../src/vocabulary/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostingClient } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { createNotifier, type Notifier } from '../../src/notify/index.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { ingest, RecordingPoster, statusPayload, tempDbPath, FAST } from '../support/notify.js';
import { replyText } from '../support/reply-text.js';
import { waitFor } from '../support/wait-for.js';

let emu: Emulator;
let hosting: HostingClient;
let db: Db;
let notifier: Notifier;
let dispatcher: ReturnType<typeof testDispatcher>;
const poster = new RecordingPoster('slack');
const dbFile = tempDbPath();
const ids: Record<string, string> = {};

function build(): void {
  db = openDatabase(dbFile.path);
  notifier = createNotifier({
    db,
    posters: { slack: poster },
    buttons: { prepare: (m) => dispatcher.prepareMessage(m) },
    hosting,
    logger: silentLogger,
    ...FAST,
  });
  dispatcher = testDispatcher({
    db,
    registry: createRegistry(watchCommands),
    services: { hosting, nodeApi: () => ({}) as never, publicUrl: 'https://localhost:9', now: Date.now, watches: notifier.watches },
    operators: ['slack:UOP'],
    logger: silentLogger,
  });
}

beforeAll(async () => {
  emu = await startEmulator({ lifecycleDelayMs: 20 });
  hosting = createHostingClient({ baseUrl: emu.url, token: emu.token, retry: { limit: 0 } });
  ids.alice = (await hosting.createNode({ name: 'alice', network: 'regtest' })).node.nodeId;
  ids.bob = (await hosting.createNode({ name: 'bob', network: 'regtest', webhookUrl: 'http://127.0.0.1:9/elsewhere' })).node.nodeId;
  // Let the creation lifecycle (STARTING -> RUNNING) finish before webhook URLs change. All URLs are loopback.
  await waitFor(() => emu.nodes().every((n) => n.status === 'RUNNING'), { timeout: 20_000, what: 'the nodes RUNNING' });
  build();
}, 90_000);
afterAll(async () => {
  await notifier?.stop();
  void db?.close();
  await emu?.close();
  dbFile.cleanup();
});

const place = { platform: 'slack' as const, channelId: 'CW', workspaceId: 'T1' };
const run = (text: string, userId = 'UOP'): Promise<Reply> =>
  dispatcher.dispatch({ via: 'typed', actor: { platform: 'slack', userId, displayName: 'Olga' }, place, text });

describe('watch commands', () => {
  it('watch add sets the webhook URL of a node that has none and says so', async () => {
    const text = replyText(await run('watch add alice status=FAILED,PAUSED'));
    expect(text).toContain('Watching alice in this channel');
    expect(text).toContain(`webhook URL set to https://localhost:9/webhooks/service/${ids.alice}`);
    const alice = await hosting.getNode(ids.alice);
    expect(alice.settings?.webhookUrl).toBe(`https://localhost:9/webhooks/service/${ids.alice}`);
    expect(await notifier.watches.list(place)).toMatchObject([{ target: ids.alice, statuses: ['FAILED', 'PAUSED'] }]);
  });

  it('watch add leaves a node webhook URL that points elsewhere and warns', async () => {
    const text = replyText(await run('watch add bob'));
    expect(text).toContain('already points elsewhere');
    expect((await hosting.getNode(ids.bob)).settings?.webhookUrl).toBe('http://127.0.0.1:9/elsewhere');
  });

  it('refuses an unknown node, an unknown status and a reader, with what to do', async () => {
    expect(replyText(await run('watch add ghost'))).toMatch(/no node named "ghost"[\s\S]*node list/);
    expect(replyText(await run('watch add alice status=BROKEN'))).toMatch(/Unknown status BROKEN[\s\S]*FAILED/);
    expect(replyText(await run('watch add all', 'UREADER')).toLowerCase()).toMatch(/operate|permission|role|not allowed/);
    expect((await notifier.watches.list(place)).some((w) => w.target === 'all')).toBe(false);
  });

  it('watch add with kinds, min_amount and escalation settings keeps them, and watch list shows them', async () => {
    const added = replyText(
      await run(
        'watch add bob kinds=status,payments,channels,liquidity,lock min_amount="10k sats" escalate_after=5 pagerduty_key=abcdefghijklmnopqrstuvwxyz012345',
      ),
    );
    expect(added).toContain('status, payments, channels, liquidity, lock');
    expect(added).toContain('10,000 sats');
    const w = (await notifier.watches.list(place)).find((x) => x.target === ids.bob)!;
    expect(w).toMatchObject({
      kinds: ['status', 'payments', 'channels', 'liquidity', 'lock'],
      minAmountMsat: 10_000_000,
      escalateAfterMin: 5,
    });
    const list = replyText(await run('watch list', 'UREADER'));
    expect(list).toContain(
      'bob | every change | status, payments, channels, liquidity, lock (≥ 10,000 sats) | after 5 min, PagerDuty key …2345 | active',
    );
    expect(list).not.toContain('abcdefghijklmnop');
    // The routing key is a secret under any name: the audit trail keeps it masked.
    const audited = (await dispatcher.services.audit.query({ action: 'watch.add', limit: 20 })).find((e) => 'pagerduty_key' in e.args);
    expect(audited?.args.pagerduty_key).toBe('[redacted]');
    expect(JSON.stringify(await dispatcher.services.audit.query({ limit: 100 }))).not.toContain('abcdefghijklmnop');
    expect(await notifier.watches.hearsActivity(ids.bob)).toBe(true);
    expect(await notifier.watches.hearsActivity(ids.alice)).toBe(false);
    // Adding the watch again without kinds= goes back to status changes only (docs/ARCHITECTURE.md, "Adding an alert kind").
    await run('watch add bob');
    expect((await notifier.watches.list(place)).find((x) => x.target === ids.bob)!.kinds).toEqual(['status']);
    expect(await notifier.watches.hearsActivity(ids.bob)).toBe(false);
  });

  it('watch add refuses an unknown kind and an amount without a unit, saying what to write', async () => {
    expect(replyText(await run('watch add bob kinds=payments,gossip'))).toMatch(/Unknown kind gossip[\s\S]*kinds=status,payments,channels/);
    expect(replyText(await run('watch add bob kinds=payments min_amount=10000'))).toMatch(
      /`min_amount` is not a valid amount: it has no unit[\s\S]*min_amount="10k sats"/,
    );
  });

  it('watch add reads min_amount typed as two words unquoted, with the one amount grammar (separators, BTC)', async () => {
    expect(replyText(await run('watch add bob kinds=payments min_amount=10k sats'))).toContain('10,000 sats');
    expect((await notifier.watches.list(place)).find((x) => x.target === ids.bob)!.minAmountMsat).toBe(10_000_000);
    await run('watch add bob kinds=payments min_amount=0.001 BTC');
    expect((await notifier.watches.list(place)).find((x) => x.target === ids.bob)!.minAmountMsat).toBe(100_000_000);
    await run('watch add bob kinds=payments min_amount=1,500 sat');
    expect((await notifier.watches.list(place)).find((x) => x.target === ids.bob)!.minAmountMsat).toBe(1_500_000);
    await run('watch add bob');
  });

  it('watch list shows the watches; mute and unmute; remove', async () => {
    const list = replyText(await run('watch list', 'UREADER'));
    expect(list).toContain('alice | FAILED, PAUSED | status | after the default delay | active');
    expect(list).toContain('bob | every change | status | after the default delay | active');
    expect(replyText(await run('watch mute bob minutes=5'))).toMatch(/Muted bob in this channel until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/m);
    expect(replyText(await run('watch list', 'UREADER'))).toMatch(
      /bob \| every change \| status \| after the default delay \| muted until \d{4}-\d\d-\d\d \d\d:\d\d UTC \|/,
    );
    expect(replyText(await run('watch unmute'))).toMatch(/Unmuted \(1 mute ended\)/);
    expect(replyText(await run('watch remove bob'))).toContain('No longer watching bob');
    expect(replyText(await run('watch remove bob'))).toMatch(/does not watch "bob"\.[\s\S]*watch list/);
    // Under a watch of all nodes, removing one node cannot work: say why and what does.
    expect(replyText(await run('watch add all'))).toContain('Watching all nodes');
    const underAll = replyText(await run('watch remove bob'));
    expect(underAll).toContain('does not watch "bob" on its own: it watches all nodes');
    expect(underAll).toContain('/rln watch mute bob');
    // A mute of one node under a watch of all nodes is listed on its own row (P34).
    await run('watch mute bob minutes=1');
    const muted = replyText(await run('watch list', 'UREADER'));
    expect(muted).toContain('Mutes (notifications held, summarised when each ends):');
    expect(muted).toMatch(/\bbob \| \d{4}-\d\d-\d\d \d\d:\d\d UTC \|/);
    expect(replyText(await run('watch unmute'))).toMatch(/Unmuted \(1 mute ended\)/);
    expect(replyText(await run('watch list', 'UREADER'))).not.toContain('Mutes');
    // A name that is no node is not offered a mute: it is said to be no node.
    const nobody = replyText(await run('watch remove nobody'));
    expect(nobody).toContain('There is no node "nobody"');
    expect(nobody).not.toContain('watch mute');
    expect(nobody).toContain('/rln node list');
    expect(replyText(await run('watch remove all'))).toContain('No longer watching all nodes');
  });

  it('survives a restart', async () => {
    await notifier.stop();
    void db.close();
    build();
    expect(replyText(await run('watch list', 'UREADER'))).toContain('alice | FAILED, PAUSED');
  });

  it('the Acknowledge button of an incident records who clicked it', async () => {
    await ingest(notifier, statusPayload(ids.alice, 'FAILED'), 'alice');
    await notifier.drain(3000);
    const incident = poster.topLevel('CW').at(-1)!.message;
    expect(incident.header).toMatch(/Incident #\d+: alice is FAILED/);
    const ackButton = incident.buttons!.find((b) => b.label === 'Acknowledge')!;
    expect(ackButton.id).toBeTruthy();
    const r = await dispatcher.dispatch({
      via: 'button',
      actor: { platform: 'slack', userId: 'UOP', displayName: 'Olga' },
      place,
      buttonId: ackButton.id!,
    });
    expect(replyText(r)).toMatch(/acknowledged by Olga \(slack:UOP\)/);
    expect((await notifier.watches.incidents({ place, state: 'open' }))[0].ackedBy).toBe('Olga (slack:UOP)');
    expect(replyText(await run('watch ack 999'))).toMatch(/no incident #999/);
    await notifier.drain(3000);
    expect(inlineToPlain(JSON.stringify(poster.updates().at(-1)!.message))).toContain('by Olga');
  });

  it("lets an operator scoped to a node acknowledge that node's incident, by its button, and no other node's", async () => {
    const scoped = { platform: 'slack' as const, userId: 'USCOPED', displayName: 'Sam' };
    await dispatcher.services.access.grant('slack:USCOPED', 'operate', { platform: 'slack', userId: 'UADMIN' }, { nodes: ['bob'] });
    await run('watch add bob');
    await ingest(notifier, statusPayload(ids.bob, 'FAILED'), 'bob');
    await notifier.drain(3000);
    const incident = poster
      .topLevel('CW')
      .filter((m) => /Incident #\d+: bob is FAILED/.test(m.message.header ?? ''))
      .at(-1)!.message;
    const ackButton = incident.buttons!.find((b) => b.label === 'Acknowledge')!;
    const r = await dispatcher.dispatch({ via: 'button', actor: scoped, place, buttonId: ackButton.id! });
    expect(replyText(r)).toMatch(/acknowledged by Sam \(slack:USCOPED\)/);

    // alice's incident (acknowledged above or not) is not Sam's to acknowledge, by number or by naming bob.
    const aliceIncident = (await notifier.watches.incidents({ place })).find((i) => i.nodeId === ids.alice)!;
    expect(replyText(await dispatcher.dispatch({ via: 'typed', actor: scoped, place, text: `watch ack ${aliceIncident.id}` }))).toContain(
      'limited to nodes=bob',
    );
    expect(
      replyText(await dispatcher.dispatch({ via: 'typed', actor: scoped, place, text: `watch ack ${aliceIncident.id} bob` })),
    ).toContain('is not about that node');
  });
});
