import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from './http-problem.js';

/**
 * The emulator's handlers read raw bodies (every content type is kept as a buffer), so that
 * a non-JSON body is answered with the service's own 400.
 */
export const requestBody = {
  text(req: FastifyRequest): string {
    const b = req.body;
    if (Buffer.isBuffer(b)) return b.toString('utf8');
    return typeof b === 'string' ? b : '';
  },

  /** The body as a JSON object; `{}` when empty and not required. */
  jsonObject(req: FastifyRequest, required: boolean): Record<string, unknown> {
    const raw = requestBody.text(req);
    if (raw.trim() === '') {
      if (required) throw new HttpProblem(400, 'A JSON body is required');
      return {};
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new HttpProblem(400, 'The body is not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpProblem(400, 'The body must be a JSON object');
    return parsed as Record<string, unknown>;
  },

  /** lossless-json's number parser: integers above 2^53 become bigint instead of being rounded (u64 amounts). */
  jsonNumber(text: string): number | bigint {
    if (/^-?\d+$/.test(text)) {
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : BigInt(text);
    }
    return Number(text);
  },

  /** Compares an Authorization header with the expected one in constant time. */
  bearerMatches(header: string | undefined, token: string): boolean {
    if (!header) return false;
    const x = Buffer.from(header);
    const y = Buffer.from(`Bearer ${token}`);
    return x.length === y.length && timingSafeEqual(x, y);
  },
};
