/**
 * Paging URLs that cannot reach inside (issue 27, item 5): a PagerDuty events URL or an escalation
 * webhook naming a private, loopback or metadata address is refused, for good and without a
 * request, unless ALLOW_PRIVATE_URLS lists it; then the page goes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createPaging } from '../../src/notify/index.js';
import { NotifyPages, NotifyStore, openDatabase } from '../../src/store/index.js';
import { parseAllowList } from '../../src/vocabulary/index.js';
import { startFakePagerDuty } from '../fakes/pagerduty/index.js';
import { tempDbPath } from '../support/notify.js';

const KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** An incident on alice that is due for paging, with paging to `pagerduty` or `webhook` under this allow list. */
async function due(o: { pagerdutyUrl?: string; webhookUrl?: string; allow: string }) {
  const file = tempDbPath();
  cleanup.push(() => file.cleanup());
  const db = openDatabase(file.path);
  cleanup.push(() => db.open && db.close());
  let clock = 1_000_000;
  const store = new NotifyStore(db);
  const paging = createPaging({
    store,
    pages: new NotifyPages(db),
    now: () => clock,
    log: silentLogger,
    metrics: createMetrics({ defaults: false }),
    ...(o.pagerdutyUrl ? { pagerduty: { url: o.pagerdutyUrl, routingKey: KEY } } : {}),
    ...(o.webhookUrl ? { webhook: { url: o.webhookUrl } } : {}),
    escalateAfterMin: 10,
    retry: { baseDelayMs: 1000 },
    wake: () => undefined,
    allowPrivate: parseAllowList(o.allow),
  });
  await store.upsertWatch({
    platform: 'slack',
    channel_id: 'C1',
    workspace_id: null,
    target: 'n1',
    target_name: 'alice',
    statuses: null,
    kinds: null,
    min_amount_msat: null,
    escalate_after_min: null,
    pagerduty_key: null,
    created_by: 'test',
    created_at: clock,
  });
  await store.insertIncident({
    platform: 'slack',
    channel_id: 'C1',
    node_id: 'n1',
    node_name: 'alice',
    last_status: 'FAILED',
    opened_at: clock,
    message_id: 'm1',
    thread_id: null,
    changes: 0,
  });
  clock += 10 * 60_000;
  await paging.tick();
  await paging.tick();
  return new NotifyPages(db).pages();
}

describe('paging URLs naming an inside address', () => {
  it('refuses a PagerDuty URL on loopback, sending nothing, and sends once ALLOW_PRIVATE_URLS lists it', async () => {
    const pd = await startFakePagerDuty();
    cleanup.push(() => pd.close());
    const refused = await due({ pagerdutyUrl: pd.eventsUrl, allow: '' });
    expect(pd.events).toEqual([]);
    expect(refused[0]).toMatchObject({
      state: 'failed',
      last_error: expect.stringMatching(/PagerDuty URL names .*127\.0\.0\.1.*ALLOW_PRIVATE_URLS/),
    });

    const allowed = await due({ pagerdutyUrl: pd.eventsUrl, allow: '127.0.0.1' });
    expect(pd.events).toHaveLength(1);
    expect(allowed[0]).toMatchObject({ state: expect.not.stringMatching(/failed/) });
  });

  it('refuses the metadata address and a private network for PagerDuty and the escalation webhook', async () => {
    for (const [kind, url] of [
      ['pagerduty', 'http://169.254.169.254/v2/enqueue'],
      ['webhook', 'https://10.0.0.5/escalate'],
      ['webhook', 'https://169.254.169.254/latest/meta-data/'],
    ] as const) {
      const pages = await due(kind === 'pagerduty' ? { pagerdutyUrl: url, allow: '' } : { webhookUrl: url, allow: '' });
      const page = pages.find((p) => p.target === kind)!;
      expect(page, url).toMatchObject({ state: 'failed', last_error: expect.stringContaining('ALLOW_PRIVATE_URLS') });
      expect(page.last_error).toContain(kind === 'pagerduty' ? 'the PagerDuty URL' : 'the escalation webhook URL');
    }
  });
});
