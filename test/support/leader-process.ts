/**
 * A replica reduced to its leader, as a process of its own (for the SIGKILL failover test):
 * LEADER_URL, LEADER_OWNER, LEADER_TTL_MS, LEADER_RENEW_MS from the environment; prints
 * `leading` and `lost` on standard output as it gains and loses the lease. Killed, it releases
 * nothing.
 */
import { createLeader } from '../../src/store/index.js';
import { createLeases, openPostgres } from '../../src/store/index.js';

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const db = await openPostgres(env('LEADER_URL'), { onError: () => undefined });
const leader = createLeader({
  leases: createLeases(db),
  name: 'discord-gateway',
  owner: env('LEADER_OWNER'),
  ttlMs: Number(env('LEADER_TTL_MS')),
  renewMs: Number(env('LEADER_RENEW_MS')),
  onLead: async () => void process.stdout.write('leading\n'),
  onLose: async () => void process.stdout.write('lost\n'),
});
await leader.start();
process.stdout.write('started\n');
process.on('SIGTERM', () => {
  void leader
    .stop()
    .then(() => db.close())
    .then(() => process.exit(0));
});
