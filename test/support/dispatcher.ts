/**
 * A dispatcher as the composition root builds it (roles, audit, button ids and confirmations on
 * one database, one services object), for tests that give only the services their commands use.
 */
import { openDatabase, type Db } from '../../src/store/index.js';
import { createAuditLog, createRoleService, createPolicy } from '../../src/access/index.js';
import {
  createButtonIds,
  createConfirmations,
  createDispatcher,
  approvalActionChecker,
  type CoreDispatcher,
  type DispatcherOptions,
  type Registry,
} from '../../src/engine/index.js';
import { type Services } from '../../commands/index.js';

export interface TestDispatcherOptions extends Partial<Omit<DispatcherOptions, 'services' | 'registry'>> {
  registry: Registry;
  db?: Db;
  /** The services the commands under test use; the core's own are added. */
  services?: Partial<Services>;
  admins?: string[];
  operators?: string[];
  /** The clock (ms). Default: the real one. */
  now?: () => number;
  /** APPROVAL_POLICY. Default `none`: tests of other behaviour run without a second person. */
  approvalPolicy?: string;
  /** SPEND_LIMITS. Default: none. */
  spendLimits?: string;
  readers?: string[];
}

export function testDispatcher(o: TestDispatcherOptions): CoreDispatcher & { services: Services } {
  const {
    registry,
    db = openDatabase(':memory:'),
    services: given = {},
    admins,
    operators,
    readers,
    approvalPolicy = 'none',
    spendLimits,
    now = given.now ?? Date.now,
    ...rest
  } = o;
  const access = createRoleService(db, { admins, operators, readers, now });
  const audit = createAuditLog(db, { now });
  const policy = createPolicy({ db, now, access, approvalPolicy, spendLimits, checkAction: approvalActionChecker(registry) });
  // The rooms' services a test does not give are absent: a handler that reaches for one fails loudly.
  const services = { ...given, now, access, audit, commands: registry, policy } as Services;
  const dispatcher = createDispatcher({
    registry,
    services,
    buttons: rest.buttons ?? createButtonIds({ db, now }),
    confirmations: rest.confirmations ?? createConfirmations({ db, now }),
    ...rest,
  });
  return Object.assign(dispatcher, { services });
}
