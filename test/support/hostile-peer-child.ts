/**
 * Run in a process of its own by test/node-api/hostile-node.test.ts, so that its resident memory
 * is the bot's reading of hostile answers and nothing else: the node API client and the log
 * download, with their default limits, against the hostile node at HOSTILE_URL. Prints one JSON
 * line: each call's outcome and the process's peak resident memory.
 *
 * Started with --expose-gc: the garbage of one call is collected before the next (as the bot's
 * collections would between them), so the peak is the worst single call's, not the sum of the
 * garbage of six calls in a row. Without it the peak read 241–256 MiB alone and 305 MiB in one
 * full `npm test` of five (the limit is 300); with it, 214–225 MiB alone.
 */
import { createNodeApiClient, type NodeApiClient } from '../../src/node-api/index.js';
import { downloadLogFile } from '../../src/hosting/index.js';
import { redact } from '../../src/log.js';

const base = process.env.HOSTILE_URL!;
const client: NodeApiClient = createNodeApiClient({
  baseUrl: base,
  credentials: { kind: 'token', token: 'hostile-test-token' },
  timeoutMs: 60_000,
  retries: 0,
});
const outcomes: Record<string, string> = {};
const exposed = (globalThis as { gc?: () => void }).gc;
// Without it the peak is again the garbage of every call so far (see above): refuse to measure that.
if (!exposed) throw new Error('hostile-peer-child: run it with node --expose-gc');
const collect = exposed;
const attempt = async (name: string, f: () => Promise<unknown>) => {
  collect();
  try {
    const r = await f();
    outcomes[name] = `ok: ${JSON.stringify(r).slice(0, 200)}`;
  } catch (e) {
    outcomes[name] = `error: ${(e as Error).message}`;
  }
  peaks[name] = process.resourceUsage().maxRSS / 1024;
};
const peaks: Record<string, number> = { start: process.resourceUsage().maxRSS / 1024 };
await attempt('listassets', () => client.listassets({ filter_asset_schemas: [] }));
await attempt('nodeinfo', () => client.nodeinfo());
await attempt('listchannels', () => client.listchannels());
await attempt('listpeers', () => client.listpeers());
for (const [name, file] of [
  ['log', 'rln.log'],
  ['huge', 'huge.log'],
]) {
  await attempt(name, async () => {
    const d = await downloadLogFile(`${base}/logs/${file}`);
    const masked = redact(d.text);
    return { truncated: d.truncated, cutAtMax: d.cutAtMax, bytes: d.text.length, tail: masked.slice(-80) };
  });
}
process.stdout.write(`${JSON.stringify({ outcomes, peaks, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
