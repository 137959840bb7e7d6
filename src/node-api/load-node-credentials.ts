import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import { registerSecret } from '../log.js';

const require = createRequire(import.meta.url);
/** The YAML parser, loaded only for a YAML credentials file: about 1 MiB of heap a bot without one need not hold (issue 18). */
const parseYaml = (text: string): unknown => (require('yaml') as typeof Yaml).parse(text);

/** How to authenticate to one node's API. */
export type NodeCredentials =
  | { kind: 'token'; token: string }
  | { kind: 'mtls'; certFile: string; keyFile: string; caFile?: string; token?: string }
  /** Fetched through the service's `generate-cert` and kept by the bot (PEM; `key` is a secret). */
  | { kind: 'service-mtls'; certificate: string; chain?: string; key: string; token?: string }
  | { kind: 'none' };

const Entry = z.union([
  z
    .object({ cert: z.string().min(1), key: z.string().min(1), ca: z.string().min(1).optional(), token: z.string().min(1).optional() })
    .strict(),
  z.object({ token: z.string().min(1) }).strict(),
]);
const FileShape = z.record(z.string(), Entry);

/** Credentials file problems, without any secret value in the message. */
export class NodeCredentialsError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodeCredentialsError';
  }
}

/**
 * Reads NODE_CREDENTIALS_FILE (JSON or YAML): a mapping from node name or id to `{ token }` or
 * `{ cert, key, ca?, token? }` (files relative to the credentials file). Returns a lookup: id first, then name,
 * then the default token, else no credentials. Throws NodeCredentialsError when the file is unreadable or invalid.
 */
export type NodeCredentialsLookup = ((node: { nodeId: string; name: string }) => NodeCredentials) & {
  /** The file's own entry for a node (by id, then name), if it has one: it wins over anything else. */
  fromFile(node: { nodeId: string; name: string }): NodeCredentials | undefined;
  /** NODE_API_TOKEN, or none. */
  fallback: NodeCredentials;
};

export function loadNodeCredentials(opts: { defaultToken?: string; file?: string }): NodeCredentialsLookup {
  const byKey = new Map<string, NodeCredentials>();
  if (opts.file) {
    const file = opts.file;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new NodeCredentialsError(file, `cannot read NODE_CREDENTIALS_FILE ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let data: unknown;
    try {
      data = text.trim().startsWith('{') ? JSON.parse(text) : parseYaml(text);
    } catch {
      throw new NodeCredentialsError(file, `NODE_CREDENTIALS_FILE ${file} is neither valid JSON nor valid YAML`);
    }
    const parsed = FileShape.safeParse(data ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
      throw new NodeCredentialsError(file, `NODE_CREDENTIALS_FILE ${file}: entry ${where} must be { token } or { cert, key, ca?, token? }`);
    }
    const base = dirname(resolve(file));
    const path = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
    for (const [key, entry] of Object.entries(parsed.data)) {
      // Masked in every log line and error text, like the tokens from the environment.
      registerSecret(entry.token);
      byKey.set(
        key,
        'cert' in entry
          ? {
              kind: 'mtls',
              certFile: path(entry.cert),
              keyFile: path(entry.key),
              ...(entry.ca ? { caFile: path(entry.ca) } : {}),
              ...(entry.token ? { token: entry.token } : {}),
            }
          : { kind: 'token', token: entry.token },
      );
    }
  }
  const fallback: NodeCredentials = opts.defaultToken ? { kind: 'token', token: opts.defaultToken } : { kind: 'none' };
  const fromFile = (node: { nodeId: string; name: string }) => byKey.get(node.nodeId) ?? byKey.get(node.name);
  return Object.assign((node: { nodeId: string; name: string }) => fromFile(node) ?? fallback, { fromFile, fallback });
}
