/**
 * Downloads one file of a log export from the temporary link the service gave (`node logs`).
 * The links are pre-signed: no bearer token is sent, so none can leak to wherever they point.
 * Only http(s), with a timeout and a size cap: a log bigger than the cap keeps its last part.
 */
import got from 'got';
import { ServiceError } from './service-error.js';

export const LOG_DOWNLOAD_MAX_BYTES = 5 * 1024 * 1024;

export async function downloadLogFile(url: string, o: { maxBytes?: number; timeoutMs?: number } = {}): Promise<{ name: string; text: string; truncated: boolean }> {
  const endpoint = 'GET <log download link>';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServiceError({ endpoint, kind: 'invalid', detail: 'the service gave a log link that is not a URL' });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ServiceError({ endpoint, kind: 'invalid', detail: `the service gave a ${parsed.protocol} log link; only http(s) is downloaded` });
  }
  const max = o.maxBytes ?? LOG_DOWNLOAD_MAX_BYTES;
  let body: Buffer;
  try {
    body = await got(parsed, { timeout: { request: o.timeoutMs ?? 20_000 }, retry: { limit: 1 }, responseType: 'buffer', followRedirect: true, maxRedirects: 3 }).buffer();
  } catch (e) {
    throw new ServiceError({ endpoint, kind: 'network', detail: `the log file could not be downloaded (${(e as Error).message})`, hint: 'The link may have expired: run node logs again.' });
  }
  const truncated = body.length > max;
  const text = (truncated ? body.subarray(body.length - max) : body).toString('utf8');
  const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'node.log');
  return { name, text, truncated };
}
