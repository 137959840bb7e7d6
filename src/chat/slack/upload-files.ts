/**
 * Uploads a message's files into a channel (or thread) the way Slack asks since files.upload
 * was retired: files.getUploadURLExternal for each file, the bytes POSTed to the URL it gives,
 * then one files.completeUploadExternal that shares them into the channel.
 *
 * Sharing a file needs the bot to be a member of the channel (chat:write.public is not enough).
 * When Slack says it is not, the bot joins a public channel (conversations.join, channels:join)
 * and tries once more; a private channel cannot be joined, so the error asks for an invite.
 *
 * A user id (`U…`, `W…`: a report run from the App Home, a direct answer) is not a channel to
 * Slack's file methods: the files go to the user's direct message with the bot, whose `D…` id
 * conversations.open gives (im:write). A direct message is never joined.
 */
import type { webApi } from '@slack/bolt';
import { PostError } from '../../vocabulary/index.js';
import { fileBytes, type MessageFile } from '../../vocabulary/index.js';
import { toPostError } from './to-post-error.js';

type WebClient = InstanceType<typeof webApi.WebClient>;

/** Slack's codes for "the bot is not in this channel" when sharing a file. */
const NOT_MEMBER = new Set(['not_in_channel', 'channel_not_found']);

function slackCode(e: unknown): string | undefined {
  return (e as { data?: { error?: string } })?.data?.error;
}

export interface UploadTarget {
  channelId: string;
  threadId?: string;
}

async function putBytes(url: string, f: MessageFile, timeoutMs: number, what: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(fileBytes(f)),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new PostError('transient', `${what}: the upload of ${f.name} did not go through (${(e as Error).message}); retrying later`);
  }
  await res.arrayBuffer().catch(() => undefined);
  if (res.status >= 500 || res.status === 429)
    throw new PostError('transient', `${what}: the upload of ${f.name} was answered ${res.status}; retrying later`);
  if (res.status >= 400) throw new PostError('permanent', `${what}: the upload of ${f.name} was refused (${res.status})`);
}

/** A Slack user id, where a channel id was expected (the App Home has no channel). */
export const isUserId = (id: string): boolean => /^[UW][A-Z0-9]+$/.test(id);

/** The direct message between the bot and a user (conversations.open). */
async function openDirectMessage(web: WebClient, userId: string, what: string): Promise<string> {
  try {
    const res = await web.conversations.open({ users: userId });
    const id = res.channel?.id;
    if (!id) throw new PostError('permanent', `${what}: Slack opened no direct message with ${userId}`);
    return id;
  } catch (e) {
    if (e instanceof PostError) throw e;
    throw toPostError(e, `${what} (opening the direct message)`);
  }
}

export async function uploadFiles(
  web: WebClient,
  given: UploadTarget,
  files: MessageFile[],
  o: { timeoutMs?: number } = {},
): Promise<void> {
  if (!files.length) return;
  const what = `Slack file upload to ${given.channelId}`;
  const target = isUserId(given.channelId) ? { channelId: await openDirectMessage(web, given.channelId, what) } : given;
  const timeoutMs = o.timeoutMs ?? 30_000;
  const uploaded: Array<{ id: string; title: string }> = [];
  try {
    for (const f of files) {
      const bytes = fileBytes(f);
      const res = await web.files.getUploadURLExternal({ filename: f.name, length: bytes.length, alt_text: f.alt });
      if (!res.upload_url || !res.file_id) throw new PostError('permanent', `${what}: Slack gave no upload URL for ${f.name}`);
      await putBytes(res.upload_url, f, timeoutMs, what);
      uploaded.push({ id: res.file_id, title: f.title });
    }
  } catch (e) {
    throw toPostError(e, what);
  }
  const complete = () =>
    web.files.completeUploadExternal({
      files: uploaded as [{ id: string; title: string }],
      channel_id: target.channelId,
      ...(target.threadId ? { thread_ts: target.threadId } : {}),
    });
  try {
    await complete();
    return;
  } catch (e) {
    // A direct message cannot be joined: only a channel can.
    if (!NOT_MEMBER.has(slackCode(e) ?? '') || target.channelId.startsWith('D')) throw toPostError(e, what);
  }
  await joinChannel(web, target.channelId, what);
  try {
    await complete();
  } catch (e) {
    throw toPostError(e, what);
  }
}

/** Joins a public channel so files can be shared into it; a private one needs an invite. */
async function joinChannel(web: WebClient, channelId: string, what: string): Promise<void> {
  try {
    await web.conversations.join({ channel: channelId });
  } catch (e) {
    const code = slackCode(e);
    if (code === 'method_not_supported_for_channel_type' || code === 'is_private' || code === 'channel_not_found') {
      throw new PostError(
        'permanent',
        `${what}: the bot is not a member of this private channel, so it cannot share files there. Invite it with /invite @rln, and the next report will carry its chart.`,
      );
    }
    throw toPostError(e, `${what} (joining the channel first)`);
  }
}
