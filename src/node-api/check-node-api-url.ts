const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * A node's API address must be HTTPS before its token or a password is sent there (plain
 * HTTP only to a loopback host, for the emulator and local nodes). Returns why it is
 * refused, or undefined when it is fine.
 */
export function checkNodeApiUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'its API address is not a valid URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) return undefined;
  return `its API address is not HTTPS (${url.protocol}//${url.host}), so its credentials would travel in clear`;
}
