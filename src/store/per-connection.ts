/**
 * One object per database connection, made on first use: every store over the connection shares
 * it (as they share its transactions), and it goes with the connection.
 */
import type { AnyDb } from './database.js';

export function perConnection<T extends object>(make: (db: AnyDb) => T): (db: AnyDb) => T {
  const made = new WeakMap<AnyDb, T>();
  return (db) => {
    let one = made.get(db);
    if (!one) {
      one = make(db);
      made.set(db, one);
    }
    return one;
  };
}
