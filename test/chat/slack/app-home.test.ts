/**
 * The App Home tab against the fake Slack: published for the user who opens it, and published
 * again when a watched node changes, at most once per throttle window however many changes come.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedDispatcher } from './scripted-dispatcher.js';
import { startSlackBot, type SlackBot } from './start-slack-bot.js';

let bot: SlackBot;
let version = 0;
const dispatcher = scriptedDispatcher(() => ({
  kind: 'message',
  visibility: 'channel',
  message: { header: 'Status · 2 nodes', blocks: [{ type: 'text', text: `alice RUNNING, bob PAUSED (read ${++version})` }] },
}));

// As the real dispatcher does: buttons get stored ids.
dispatcher.prepareMessage = async (m) => ({ ...m, buttons: m.buttons?.map((b, i) => ({ ...b, id: b.id ?? `b_home${i}` })) });

beforeAll(async () => {
  bot = await startSlackBot('socket', dispatcher, { roleOf: async () => 'admin', homeThrottleMs: 400 });
}, 90_000);
afterAll(async () => {
  await bot?.close();
});

const open = (user: string) =>
  bot.fake.sendEnvelope('events_api', {
    type: 'event_callback',
    team_id: bot.fake.teamId,
    event: { type: 'app_home_opened', user, channel: `D${user}`, tab: 'home' },
  });

describe('the App Home tab', () => {
  it('publishes the status dashboard with the role of the user who opened it, asking as that user', async () => {
    await open('UHOME1');
    const [call] = await bot.fake.waitForCalls('views.publish', 1);
    expect(call.args.user_id).toBe('UHOME1');
    const text = JSON.stringify(call.args.view);
    expect(text).toContain('alice RUNNING');
    expect(text).toContain('admin');
    const inv = dispatcher.invocations.at(-1)!;
    expect(inv.via === 'typed' && inv.text).toBe('status');
    expect(inv.actor.userId).toBe('UHOME1');
  });

  it('a storm of node changes publishes at once and once more at the end of the throttle window, not once per change', async () => {
    // Past the window of the last publish: the first change publishes at once.
    await new Promise((r) => setTimeout(r, 500));
    const before = bot.fake.callsTo('views.publish').length;
    for (let i = 0; i < 20; i++) bot.adapter.refreshHome();
    const calls = await bot.fake.waitForCalls('views.publish', before + 2);
    // Let any further publish the storm could wrongly cause arrive: two more windows.
    await new Promise((r) => setTimeout(r, 900));
    expect(bot.fake.callsTo('views.publish').length).toBe(before + 2);
    expect(calls.slice(before).map((c) => c.args.user_id)).toEqual(['UHOME1', 'UHOME1']);
  });
});
