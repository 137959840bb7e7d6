/**
 * Drives interactions through the fake Discord and reads the bot's answer from the recorded REST
 * calls: the first answer (interaction callback) and, when deferred, the edit or follow-up.
 */
import type { FakeDiscord, RecordedCall } from '../fakes/discord/index.js';

export interface Answer {
  /** The callback type of the first answer (4, 5, 6, 7, 8, 9). */
  type: number;
  /** The message (or modal / choices) data: from the callback, or from the edit after a deferral. */
  data: any;
  /** Whether the answer is only visible to the user (flag 64). */
  ephemeral: boolean;
  callback: RecordedCall;
  /** Calls after the callback for this interaction (edits, follow-ups). */
  later: RecordedCall[];
}

const isFor = (token: string) => (c: RecordedCall) => c.path.includes(`/${token}`);

/** Sends `d` over the gateway and resolves with the bot's answer. */
export async function gatewayAnswer(fake: FakeDiscord, d: { id: string; token: string }): Promise<Answer> {
  const from = fake.calls.length ? fake.calls[fake.calls.length - 1].seq : 0;
  await fake.sendInteraction(d);
  const callback = await fake.waitForCall((c) => c.method === 'POST' && c.path === `/interactions/${d.id}/${d.token}/callback`, { from });
  return finishAnswer(fake, d.token, callback.body, callback);
}

/** After the first answer: for a deferral, waits for the edit (or follow-up) that completes it. */
export async function finishAnswer(fake: FakeDiscord, token: string, first: any, callback: RecordedCall): Promise<Answer> {
  let data = first.data;
  let ephemeral = ((first.data?.flags ?? 0) & 64) === 64;
  const later: RecordedCall[] = [];
  if (first.type === 5 || first.type === 6) {
    const edit = await fake.waitForCall((c) => isFor(token)(c) && c.path.startsWith('/webhooks/'), { from: callback.seq });
    later.push(edit);
    data = edit.body;
    if (edit.method === 'PATCH' && edit.body?.embeds?.[0]?.title === 'Answered privately') {
      const follow = await fake.waitForCall((c) => isFor(token)(c) && c.method === 'POST' && c.path.startsWith('/webhooks/'), {
        from: edit.seq,
      });
      later.push(follow);
      data = follow.body;
    }
    ephemeral = ((data?.flags ?? 0) & 64) === 64;
  }
  return { type: first.type, data, ephemeral, callback, later };
}

/** Every component of a payload, nested ones included (a V2 card's text displays, rows and buttons). */
export function componentsOf(data: any): any[] {
  const out: any[] = [];
  const walk = (c: any) => {
    out.push(c);
    for (const x of c?.components ?? []) walk(x);
    if (c?.accessory) walk(c.accessory);
  };
  for (const c of data?.components ?? []) walk(c);
  return out;
}

/** All the text of a message payload (title, description, fields, footer; a V2 card's text displays), for assertions. */
export function textOf(data: any): string {
  const parts: string[] = [];
  if (data?.content) parts.push(data.content);
  for (const c of componentsOf(data)) if (c?.type === 10) parts.push(c.content);
  for (const e of data?.embeds ?? []) {
    parts.push(e.title ?? '', e.description ?? '', e.footer?.text ?? '');
    for (const f of e.fields ?? []) parts.push(f.name, f.value);
  }
  return parts.join('\n').replace(/\\(.)/g, '$1');
}

export function buttonsOf(data: any): Array<{ label: string; custom_id: string; style: number }> {
  return componentsOf(data).filter((c) => c?.type === 2);
}
