/**
 * Two replicas behind one load balancer, Slack in HTTP mode: a confirmation asked through one
 * replica is clicked through the other, and works once; a double click split across both
 * replicas runs the action once (the other click hears that the confirmation was used); and a
 * signed request replayed to the other replica is refused (the replay guard is shared).
 *
 * The action is `node stop` of the emulator's demo nodes: the emulator records every stop
 * request it receives, so the test sees how many times the action really ran.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { blockActionsPayload, postSigned, signSlackRequest, slashCommandPayload, type RespondCall } from '../fakes/slack/index.js';
import { REPLICAS_SIGNING_SECRET as SECRET, shownIn, startReplicaWorld, type Replica, type ReplicaWorld } from '../support/replicas.js';

const ADMIN = { id: 'UADMIN', name: 'ada' };
const CHANNEL = 'COPSREP';

/** Every button (its text and action id) anywhere in a Block Kit body (blocks, attachments' blocks). */
function buttonsIn(body: unknown): Array<{ text: string; actionId: string }> {
  if (Array.isArray(body)) return body.flatMap(buttonsIn);
  if (!body || typeof body !== 'object') return [];
  const o = body as Record<string, any>;
  if (o.type === 'button' && typeof o.action_id === 'string') return [{ text: String(o.text?.text ?? ''), actionId: o.action_id }];
  return Object.values(o).flatMap(buttonsIn);
}

const shown = (r: RespondCall) => shownIn(r.body);

describe('buttons across two replicas', () => {
  let w: ReplicaWorld | undefined;
  afterAll(() => w?.close());

  it('a confirmation asked on A and clicked on B runs once; a double click split across A and B runs once; a replay to the other replica is refused', async () => {
    w = await startReplicaWorld({ n: 2, name: 'buttons', env: { ADMIN_USERS: `slack:${ADMIN.id}` } });
    const { emulator, slack } = w;
    const [a, b] = w.replicas;
    const events = (r: Replica) => `${r.url}/slack/events`;
    const node = (name: string) => emulator.nodes().find((n) => n.name === name)!;
    const stops = (name: string) =>
      emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/nodes/${node(name).nodeId}/stop`)).length;

    /** Types a command on a replica; resolves with its answer. */
    const typed = async (r: Replica, text: string): Promise<RespondCall> => {
      const responseUrl = slack.responseUrl();
      const res = await postSigned(events(r), SECRET, slashCommandPayload({ user: ADMIN, text, channelId: CHANNEL, responseUrl }));
      expect(res.status, res.text).toBe(200);
      const [answer] = await slack.waitForResponds(responseUrl);
      return answer;
    };
    /** Types `/rln node stop <name>` on replica A; resolves with the Confirm button's id. */
    const askToStop = async (name: string): Promise<string> => {
      const asked = await typed(a, `node stop ${name}`);
      expect(shown(asked)).toContain(`Confirm: node stop ${name}?`);
      const confirm = buttonsIn(asked.body).find((x) => x.text === 'Confirm');
      expect(confirm, JSON.stringify(asked.body)).toBeDefined();
      return confirm!.actionId;
    };
    /** Clicks a button through a replica (a signed request of its own); resolves with the answer posted to its response_url. */
    const click = async (r: Replica, actionId: string): Promise<RespondCall> => {
      const responseUrl = slack.responseUrl();
      const payload = blockActionsPayload({ user: ADMIN, actionId, channelId: CHANNEL, responseUrl });
      const res = await postSigned(events(r), SECRET, { payload: JSON.stringify(payload) });
      expect(res.status, res.text).toBe(200);
      const [answer] = await slack.waitForResponds(responseUrl);
      return answer;
    };

    // 1. Asked through A, confirmed through B: B finds the confirmation A stored, and stops alice once.
    expect(node('alice').status).toBe('RUNNING');
    const first = await askToStop('alice');
    expect(stops('alice')).toBe(0); // nothing runs before the confirmation
    const done = await click(b, first);
    expect(shown(done)).toContain('Node stopped');
    expect(done.body.replace_original).toBe(true);
    expect(stops('alice')).toBe(1);
    expect(node('alice').status).toBe('PAUSED');
    // A late second click on A is told the confirmation was used, and nothing runs again.
    const late = await click(a, first);
    expect(shown(late)).toMatch(/already used/);
    expect(stops('alice')).toBe(1);

    // 2. A double click split across both replicas, at the same moment: one stop, one "already used".
    expect(node('bob').status).toBe('RUNNING');
    const second = await askToStop('bob');
    // Both replicas have just listed the nodes (each keeps the list a few seconds), and the service
    // answers slowly: both clicks read the unused confirmation and pass the state check before
    // either claims it, so only the claim in the database decides which one runs.
    await Promise.all([typed(a, 'node info bob'), typed(b, 'node info bob')]);
    emulator.faults.latencyMs = 400;
    const answers = await Promise.all([click(a, second), click(b, second)]);
    emulator.faults.latencyMs = 0;
    const texts = answers.map(shown);
    expect(
      texts.filter((t) => t.includes('Node stopped')),
      texts.join('\n---\n'),
    ).toHaveLength(1);
    expect(
      texts.filter((t) => /already used/.test(t)),
      texts.join('\n---\n'),
    ).toHaveLength(1);
    expect(stops('bob')).toBe(1);
    expect(node('bob').status).toBe('PAUSED');

    // 3. A signed request accepted by A, replayed byte for byte (same signature and timestamp) to B: refused.
    const responseUrl = slack.responseUrl();
    const raw = new URLSearchParams(slashCommandPayload({ user: ADMIN, text: 'help', channelId: CHANNEL, responseUrl })).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest(SECRET, raw) };
    const original = await fetch(events(a), { method: 'POST', headers, body: raw });
    await original.arrayBuffer();
    expect(original.status).toBe(200);
    const replayed = await fetch(events(b), { method: 'POST', headers, body: raw });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toEqual({ error: 'replayed_request' });
    await slack.waitForResponds(responseUrl);
    await new Promise((r) => setTimeout(r, 500));
    expect(slack.respondsTo(responseUrl)).toHaveLength(1); // answered once, by A
  });
});
