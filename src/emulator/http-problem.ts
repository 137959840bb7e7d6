import type { FastifyReply } from 'fastify';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Thrown inside handlers; answered as `{ statusCode, error, message }` (the management API's
 * errors) by `sendProblem`. The node API answers RLN-shaped `{ error, code, name }` with `sendRln`.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  static send(reply: FastifyReply, status: number, message: string): FastifyReply {
    return reply.code(status).send({ statusCode: status, error: STATUS_TEXT[status] ?? 'Error', message });
  }

  static sendRln(reply: FastifyReply, status: number, name: string, error: string): FastifyReply {
    return reply.code(status).send({ error, code: status, name });
  }

  /** Paths of the node API (each node's invoke_url) answer RLN-shaped errors. */
  static isNodeApi(url: string): boolean {
    return url.startsWith('/nodes/');
  }
}
