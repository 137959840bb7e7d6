const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Checks a webhook URL the way the service requires it: HTTPS, or plain HTTP only for a
 * loopback host (127.0.0.1, localhost, ::1) so tests and the demo can receive webhooks.
 * Returns the reason it is refused, or undefined when it is acceptable.
 */
export function checkWebhookUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'webhookUrl must be a non-empty URL string';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `webhookUrl is not a valid URL: ${JSON.stringify(value.slice(0, 200))}`;
  }
  if (url.username || url.password) return 'webhookUrl must not contain credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) return undefined;
  if (url.protocol === 'http:') return 'webhookUrl must use HTTPS (plain HTTP is accepted only for 127.0.0.1, localhost and ::1)';
  return `webhookUrl must be an HTTPS URL, not ${url.protocol.replace(/:$/, '')}`;
}
