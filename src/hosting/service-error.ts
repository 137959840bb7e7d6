/** What went wrong with a call to the hosting service, in terms a user can act on. */
export type ServiceErrorKind = 'auth' | 'not_found' | 'conflict' | 'invalid' | 'unavailable' | 'timeout' | 'bad_response' | 'network';

export interface ServiceErrorInit {
  endpoint: string;
  kind: ServiceErrorKind;
  status?: number;
  serviceMessage?: string;
  /** Why it failed, when there is more to say than the status and the service's message. */
  detail?: string;
  hint?: string;
}

/**
 * A failed call to the management API. It carries the endpoint (a template such as
 * `POST /api/nodes/{id}/stop`), the HTTP status, the message the service gave and a hint
 * about what to do next. It never carries the bearer token, request headers or a cause
 * object from the HTTP library (those hold the headers), so it is safe to log and to show.
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  endpoint: string;
  status?: number;
  serviceMessage?: string;
  hint: string;
  kind: ServiceErrorKind;

  constructor(init: ServiceErrorInit) {
    const hint = init.hint ?? defaultHint(init.kind, init.status, init.endpoint);
    const parts = [`${init.endpoint} failed`];
    if (init.status !== undefined) parts[0] += ` (HTTP ${init.status})`;
    const why = [init.serviceMessage, init.detail].filter((s): s is string => !!s).join('; ');
    super(`${parts[0]}${why ? `: ${why}` : ''}. ${hint}`);
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.hint = hint;
    this.kind = init.kind;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      endpoint: this.endpoint,
      status: this.status,
      serviceMessage: this.serviceMessage,
      hint: this.hint,
      kind: this.kind,
    };
  }
}

export function kindForStatus(status: number): ServiceErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'invalid';
  return 'unavailable';
}

export function defaultHint(kind: ServiceErrorKind, status?: number, endpoint = ''): string {
  const refused = refusedHint(kind, endpoint);
  if (refused) return refused;
  switch (kind) {
    case 'auth':
      return status === 403
        ? 'The API token is not allowed to do this: check its permissions, or set SERVICE_API_TOKEN to a token that is.'
        : 'The API token is wrong or revoked: set SERVICE_API_TOKEN to a valid token.';
    case 'not_found':
      return 'No such node (or task): check the id with `node list`.';
    case 'conflict':
      return 'The service refused the request because it conflicts with the current state (a name already taken, or an operation already in progress): check `node list` and try again.';
    case 'invalid':
      return 'The service refused the request as invalid: check the arguments (name, network regtest|testnet, an HTTPS webhook URL).';
    case 'unavailable':
      return status === 429
        ? 'The service is rate limiting requests: wait a moment and try again.'
        : 'The service is failing or unavailable: try again later, and check its status if it persists.';
    case 'timeout':
      return 'The service did not answer in time: check SERVICE_URL and the network, or try again later.';
    case 'bad_response':
      return 'The service answered with something this bot does not understand: check that SERVICE_URL points at the hosting service, and report it if it persists.';
    case 'network':
      return 'Could not reach the service: check SERVICE_URL and the network.';
  }
}

/** What a 409 or 400 refused, for the operations where that is known. */
function refusedHint(kind: ServiceErrorKind, endpoint: string): string | undefined {
  if (kind !== 'conflict' && kind !== 'invalid') return undefined;
  const op = /\/(start|stop|upgrade|settings|logs)$/.exec(endpoint)?.[1];
  if (endpoint === 'POST /api/nodes') {
    return kind === 'conflict'
      ? 'The node was not created: that name is already taken. Choose another name (see `node list`).'
      : 'The node was not created: give a name, a network (regtest or testnet) and, if any, an HTTPS webhook URL.';
  }
  if (endpoint === 'DELETE /api/nodes') return 'The node was not destroyed: check the id with `node list`.';
  if (op === 'settings') return 'The settings were not changed: the webhook URL must be an HTTPS URL the service can reach.';
  if (op === 'logs') return 'The log export was refused: check the node with `node info` and the task id.';
  if (op && kind === 'conflict') {
    return `The ${op} was refused because of the node's current state (already in that state, or another operation in progress): check \`node info\` and try again when it settles.`;
  }
  if (op) return `The ${op} was refused as invalid: check the node id with \`node list\`.`;
  return undefined;
}
