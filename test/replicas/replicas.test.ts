/**
 * The multi-replica tests, one file so that they run one after another on one worker, beside the
 * rest of the suite instead of after it (each starts two or three bots on one PostgreSQL
 * database; two such worlds at once would want more than a 2-core machine). Each case lives in
 * its own `*.replica.ts`; run one with `npx vitest run test/replicas -t failover`.
 */
import './failover.replica.js';
import './schedules.replica.js';
import './buttons.replica.js';
