/**
 * What both engines' transactions share: a level of a transaction (the outer one, or a savepoint
 * inside it), and the turn-taking of nested tx() calls made at one level (Promise.all of two
 * nested calls must not interleave their savepoints: each waits for the one before it).
 */
export interface Level {
  depth: number;
  /** Settles when the last nested tx() started at this level has ended. */
  turn: Promise<void>;
  /** Shared by every level of one transaction; done once it ended (work that outlives it is outside it). */
  root: { done: boolean };
}

/** The level `store` stands for, if its transaction is still running. */
export function live<L extends Level>(store: L | undefined): L | undefined {
  return store && !store.root.done ? store : undefined;
}

/** Runs `fn` at `level` once the nested tx() calls started there before it have ended. */
export async function takeTurn<T>(level: Level, fn: () => Promise<T>): Promise<T> {
  const before = level.turn;
  let next!: () => void;
  level.turn = new Promise<void>((r) => (next = r));
  await before;
  try {
    if (level.root.done) throw new Error('the transaction ended before this nested tx() could begin');
    return await fn();
  } finally {
    next();
  }
}
