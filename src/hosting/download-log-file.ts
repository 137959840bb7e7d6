/**
 * Downloads one file of a log export from the temporary link the service gave (`node logs`).
 * The links are pre-signed: no bearer token is sent, so none can leak to wherever they point.
 * Only http(s), with a timeout and bounds (a 400 MiB log was read whole, 165 → 1,002 MiB):
 * - the end of the file is asked for (`Range: bytes=-LOG_KEEP_BYTES`); a server that sends the
 *   whole file anyway is streamed, and only its last LOG_KEEP_BYTES are held as it goes;
 * - at most LOG_DOWNLOAD_MAX_BYTES are read: a longer file is cut there, and says so.
 * LOG_KEEP_BYTES (8 MiB) is what one attachment may hold on Discord (10 MiB) once masked.
 */
import got from 'got';
import { ServiceError } from './service-error.js';

export const LOG_DOWNLOAD_MAX_BYTES = 64 * 1024 * 1024;
/** The end of a log that is kept, shown and attached. */
export const LOG_KEEP_BYTES = 8 * 1024 * 1024;

export interface LogFile {
  name: string;
  /** The end of the file (all of it when it is short), from its first whole line. */
  text: string;
  /** Only the end of the file is in `text`. */
  truncated: boolean;
  /** The file was longer than LOG_DOWNLOAD_MAX_BYTES and was not read to its end. */
  cutAtMax: boolean;
}

export async function downloadLogFile(
  url: string,
  o: { maxBytes?: number; keepBytes?: number; timeoutMs?: number } = {},
): Promise<LogFile> {
  const endpoint = 'GET <log download link>';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServiceError({ endpoint, kind: 'invalid', detail: 'the service gave a log link that is not a URL' });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ServiceError({
      endpoint,
      kind: 'invalid',
      detail: `the service gave a ${parsed.protocol} log link; only http(s) is downloaded`,
    });
  }
  const max = o.maxBytes ?? LOG_DOWNLOAD_MAX_BYTES;
  const keep = Math.min(max, o.keepBytes ?? LOG_KEEP_BYTES);
  let body: Buffer;
  let seen = 0;
  let cutAtMax = false;
  let partial = false;
  try {
    const chunks: Buffer[] = [];
    let held = 0;
    const stream = got.stream(parsed, {
      headers: { range: `bytes=-${keep}` },
      timeout: { request: o.timeoutMs ?? 60_000 },
      retry: { limit: 0 },
      followRedirect: true,
      maxRedirects: 3,
    });
    stream.once('response', (r: { statusCode: number }) => {
      partial = r.statusCode === 206;
    });
    for await (const c of stream as AsyncIterable<Buffer>) {
      chunks.push(c);
      held += c.length;
      seen += c.length;
      // Keep only the last `keep` bytes: drop whole chunks from the front while the rest still covers it.
      while (chunks.length > 1 && held - chunks[0].length >= keep) held -= chunks.shift()!.length;
      if (seen >= max) {
        cutAtMax = true;
        stream.destroy();
        break;
      }
    }
    body = Buffer.concat(chunks);
  } catch (e) {
    throw new ServiceError({
      endpoint,
      kind: 'network',
      detail: `the log file could not be downloaded (${(e as Error).message})`,
      hint: 'The link may have expired: run node logs again.',
    });
  }
  const truncated = partial || seen > keep;
  // From the first whole line of what is kept.
  let kept = body.length > keep ? body.subarray(body.length - keep) : body;
  if (truncated) kept = kept.subarray(kept.indexOf(10) + 1);
  const text = kept.toString('utf8');
  const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'node.log');
  return { name, text, truncated, cutAtMax };
}
