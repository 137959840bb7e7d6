/**
 * The network errors worth a retry on any call to another service: got's defaults (a socket
 * closed or reset by the other side, a name not resolved now, a connection not made in time).
 * Each client adds the words of its own transport.
 */
export const TRANSIENT_NETWORK_CODES = [
  'ETIMEDOUT',
  'ECONNRESET',
  'EADDRINUSE',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'ENETUNREACH',
  'EAI_AGAIN',
] as const;
