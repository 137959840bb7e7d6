/**
 * Three replicas on one PostgreSQL database, each running every report schedule: a tick fires on
 * all three at the same moment, and only the replica that claims the tick builds and posts the
 * report. One schedule, one report per tick, whichever replica wins it.
 *
 * The schedule is made through the real command, with node-cron's seconds field naming three
 * seconds STEP_MS apart (e.g. `6,12,18 * * * * *`), so three ticks take twelve seconds, and the next
 * firing is most of a minute later: a late duplicate can be waited for without a fourth tick
 * coming half done (built, not yet posted). A tick's time is known from the clock (a whole
 * second), so each post is counted against the last tick before it. The node API reads of the
 * emulator show how many times a report was built (the outbox's dedupe key would hide a second
 * build from the channel). The replicas look for schedules added through another every second
 * (REPORT_RELOAD_S), so b and c run the schedule typed through a well before its first tick.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/index.js';
import { postSigned, slashCommandPayload, type ApiCall, type RespondCall } from '../fakes/slack/index.js';
import { REPLICAS_SIGNING_SECRET as SECRET, shownIn, startReplicaWorld, type ReplicaWorld } from '../support/replicas.js';
import { waitFor } from '../support/wait-for.js';

const ADMIN = { id: 'UADMIN', name: 'ada' };
const CHANNEL = 'CREPORTS';
/** Between two ticks of the schedule. */
const STEP_MS = 6_000;
/** Every replica reloads the schedules within this long of a change (REPORT_RELOAD_S). */
const RELOAD_S = 1;
/**
 * From the command to its first tick: its answer (seconds on a loaded machine) and the other
 * replicas' reload. Replica a runs it from the moment it is made, so a later answer still counts.
 */
const LEAD_MS = 10_000;
/** After the third tick's report, how long a late duplicate is waited for (the next firing is 48 s away). */
const GRACE_MS = 10_000;

const shown = (r: RespondCall) => shownIn(r.body);

describe('a report schedule on three replicas', () => {
  let w: ReplicaWorld | undefined;
  afterAll(() => w?.close());

  it('posts exactly one report per tick, three ticks, three reports', async () => {
    w = await startReplicaWorld({ n: 3, name: 'schedules', env: { ADMIN_USERS: `slack:${ADMIN.id}`, REPORT_RELOAD_S: String(RELOAD_S) } });
    const { emulator, slack, url, replicas } = w;
    const [a] = replicas;

    // The three ticks counted: the whole STEP_MS after the lead, and the next two.
    const first = Math.ceil((Date.now() + LEAD_MS) / STEP_MS) * STEP_MS;
    const ticks = [first, first + STEP_MS, first + 2 * STEP_MS];
    const seconds = ticks.map((t) => new Date(t).getSeconds()).sort((x, y) => x - y);
    const cron = `${seconds.join(',')} * * * * *`;
    /** The firing a post belongs to: the last one at or before it (a post may come seconds after its tick). */
    const tickOf = (c: ApiCall) => {
      let t = Math.floor(c.at / 1_000) * 1_000;
      while (!seconds.includes(new Date(t).getSeconds())) t -= 1_000;
      return t;
    };

    // The schedule, typed through replica a; b and c learn of it from the database.
    const responseUrl = slack.responseUrl();
    const res = await postSigned(
      `${a.url}/slack/events`,
      SECRET,
      slashCommandPayload({ user: ADMIN, text: `report schedule kind=balance node=all cron="${cron}"`, channelId: CHANNEL, responseUrl }),
    );
    expect(res.status, res.text).toBe(200);
    const [scheduled] = await slack.waitForResponds(responseUrl);
    expect(shown(scheduled)).toContain('Scheduled: balance report');

    const reports = () => slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL);
    await waitFor(() => reports().some((c) => tickOf(c) === ticks[2]), {
      timeout: ticks[2] - Date.now() + 30_000,
      interval: 200,
      what: () =>
        `the report of the third tick; posts: ${JSON.stringify(reports().map((c) => ({ at: new Date(c.at).toISOString(), via: c.via })))}`,
    });
    await new Promise((r) => setTimeout(r, GRACE_MS));

    const all = reports();
    const counted = all.filter((c) => ticks.includes(tickOf(c)));
    const table = JSON.stringify(
      all.map((c) => ({ tick: new Date(tickOf(c)).toISOString(), at: new Date(c.at).toISOString(), via: c.via })),
    );
    // Which replica won each tick (the claim's holder names the process) and which one posted.
    const db = await openPostgres(url);
    const claims = await db.all<{ name: string; owner: string }>(
      "SELECT name, owner FROM store_leases WHERE name LIKE 'report:%' ORDER BY name",
    );
    await db.close();
    const replicaOf = (owner: string) => replicas.find((r) => owner.split('/')[1] === String(r.bot.child.pid))?.name ?? owner;
    console.log(
      `ticks claimed: ${JSON.stringify(claims.map((c) => ({ tick: c.name.split(':').slice(2).join(':'), by: replicaOf(c.owner) })))}\nreport posts: ${table}`,
    );

    // Exactly one report per tick counted, three in all.
    expect(counted.map(tickOf), table).toEqual(ticks);
    // And no tick before or after them was posted twice either.
    const perTick = new Map<number, number>();
    for (const c of all) perTick.set(tickOf(c), (perTick.get(tickOf(c)) ?? 0) + 1);
    expect(
      [...perTick.values()].every((n) => n === 1),
      table,
    ).toBe(true);
    // Each tick was claimed once, by one of the three, and its report built once: the emulator
    // saw each running node's balance read once per tick posted, not once per replica.
    const running = emulator.nodes().filter((n) => n.status === 'RUNNING').length;
    const balanceReads = emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/btcbalance')).length;
    expect(balanceReads, 'node balance reads').toBe(running * perTick.size);
    expect(claims.map((c) => new Date(c.name.split(':').slice(2).join(':')).getTime())).toEqual([...perTick.keys()].sort((x, y) => x - y));
    expect(claims.every((c) => replicas.some((r) => r.name === replicaOf(c.owner)))).toBe(true);
  });
});
