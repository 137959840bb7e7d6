import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDispatcher } from '../support/dispatcher.js';
import { reportCommands } from '../../commands/report.js';
import { createRegistry, type CoreDispatcher, type Reply } from '../../src/engine/index.js';
import { createReports } from '../../src/reports/index.js';
import { silentLogger } from '../../src/log.js';
import { capturingOutbox, startReportWorld, type ReportWorld } from '../support/report-world.js';
import { replyText } from '../support/reply-text.js';
import { waitFor } from '../support/wait-for.js';

let w: ReportWorld;
let dispatcher: CoreDispatcher;
let reports: ReturnType<typeof createReports>;
const outbox = capturingOutbox();

beforeAll(async () => {
  w = await startReportWorld();
  const db = w.openDb();
  reports = createReports({ db, services: w.services, outbox, logger: silentLogger, nodeTimeoutMs: 3_000 });
  dispatcher = testDispatcher({
    db,
    registry: createRegistry(reportCommands),
    services: { ...w.services, reports: reports.service, now: Date.now },
    operators: ['slack:UOP'],
    logger: silentLogger,
  });
  await reports.scheduler.start();
}, 90_000);
afterAll(async () => {
  reports?.scheduler.stop();
  await w?.close();
});

const place = { platform: 'slack' as const, channelId: 'CREP', workspaceId: 'T1' };
function run(text: string, userId = 'UOP'): Promise<Reply> {
  return dispatcher.dispatch({ via: 'typed', actor: { platform: 'slack', userId }, place, text });
}

describe('report commands', () => {
  it('report balance all answers for every node, with the ones that cannot answer on one line', async () => {
    const r = await run('report balance all', 'UREADER');
    const text = replyText(r);
    expect(text).toContain('Team total');
    expect(text).toMatch(/dave: locked/);
    expect(text).toMatch(/carol: paused/);
    expect(text).toContain('USDT spendable');
  });

  it('report channels takes a node name and unit=btc', async () => {
    const text = replyText(await run('report channels alice unit=btc', 'UREADER'));
    expect(text).toContain('Channel report · alice');
    expect(text).toMatch(/\d\.\d{8}/);
  });

  it('report schedule needs the operate role', async () => {
    const r = await run('report schedule kind=balance node=all cron="0 9 * * *"', 'UREADER');
    expect(replyText(r).toLowerCase()).toMatch(/operate|permission|role|not allowed/);
    expect(await reports.service.schedules('slack', 'CREP')).toHaveLength(0);
  });

  it('report schedule refuses a bad expression and an unknown zone with what to do', async () => {
    expect(replyText(await run('report schedule kind=balance node=all cron="99 * * * *"'))).toMatch(/not a valid cron expression/);
    // One sentence naming the field and its range, not node-cron's "25 is a invalid expression for hour" (P25).
    const hour = replyText(await run('report schedule kind=balance node=all cron="0 25 * * *"'));
    expect(hour).toContain('"0 25 * * *" is not a valid cron expression: the hour (25) must be 0–23.');
    expect(hour).not.toContain('a invalid');
    expect(replyText(await run('report schedule kind=balance node=all cron="0 9 32 * 8"'))).toContain(
      'the day of the month (32) must be 1–31 and the weekday (8) must be 0–7 (0 and 7 are Sunday) or SUN–SAT.',
    );
    expect(replyText(await run('report schedule kind=balance node=all cron="0 9 * *"'))).toContain(
      'it has 4 fields, not 5 (or 6 with seconds first).',
    );
    expect(replyText(await run('report schedule kind=balance node=all cron="0 9 * * *" tz=Nowhere/City'))).toMatch(/not a known time zone/);
  });

  it('schedule, schedules and unschedule work from chat, and the schedule posts to this channel', async () => {
    const made = replyText(await run('report schedule kind=channels node=alice cron="*/1 * * * * *" tz=Europe/Rome'));
    expect(made).toContain('Scheduled: channels report for alice');
    const id = (await reports.service.schedules('slack', 'CREP'))[0].id;
    const list = replyText(await run('report schedules', 'UREADER'));
    expect(list).toContain(`${id} | channels | alice | every second (Europe/Rome) | */1 * * * * * |`);
    await waitFor(() => outbox.items.some((i) => i.channelId === 'CREP'), { timeout: 8_000 });
    expect(outbox.items.find((i) => i.channelId === 'CREP')).toMatchObject({ platform: 'slack', kind: 'report' });
    expect(replyText(await run(`report unschedule ${id}`))).toContain(`Removed schedule ${id}`);
    expect(replyText(await run('report schedules'))).toContain('no report schedules');
  });

  it('describes each schedule in words with its next run, and refuses an identical one, naming it', async () => {
    const made = replyText(await run('report schedule kind=balance node=all cron="0 9 * * *" tz=Europe/Berlin'));
    expect(made).toContain('When: every day at 09:00 Europe/Berlin (0 9 * * *)');
    expect(made).toMatch(/Next run: \d{4}-\d\d-\d\d 09:00 Europe\/Berlin/);
    const id = (await reports.service.schedules('slack', 'CREP')).find((s) => s.cron === '0 9 * * *')!.id;
    const again = replyText(await run('report schedule kind=balance node=all cron="0  9 * * *" tz=Europe/Berlin'));
    expect(again).toContain(`This channel already has that schedule: ${id}, the balance report for all, every day at 09:00 Europe/Berlin.`);
    expect(again).toContain(`/rln report unschedule ${id}`);
    expect((await reports.service.schedules('slack', 'CREP')).filter((s) => s.cron === '0 9 * * *')).toHaveLength(1);
    // Another zone is another schedule.
    expect(replyText(await run('report schedule kind=balance node=all cron="0 9 * * *" tz=UTC'))).toContain(
      'Scheduled: balance report for all',
    );
    const list = replyText(await run('report schedules'));
    expect(list).toMatch(
      new RegExp(
        `${id} \\| balance \\| all \\| every day at 09:00 Europe/Berlin \\| 0 9 \\* \\* \\* \\| \\d{4}-\\d\\d-\\d\\d 09:00 Europe/Berlin`,
      ),
    );
  });
});
