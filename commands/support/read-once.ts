/**
 * A read of a node shared by the steps of one attempt that only look: the state check, a
 * dialog's fields, the confirmation's preview, the spend and approval hooks (`ctx.reads`, made by
 * the engine). A command that works out the same plan in each asks the node once. The handler's
 * context has no `reads`: there `read` runs each time, on what the node says when it acts.
 */
export function readOnce<T>(ctx: { reads?: Map<string, Promise<unknown>> }, key: string, read: () => Promise<T>): Promise<T> {
  const had = ctx.reads?.get(key);
  if (had) return had as Promise<T>;
  // A read that throws before its first await is a rejection, as an async function's would be.
  const asked = new Promise<T>((resolve) => resolve(read()));
  ctx.reads?.set(key, asked);
  return asked;
}
