import { checkWebhookUrl } from './check-webhook-url.js';
import {
  clientCertSchema,
  createNodeSchema,
  exportLogsSchema,
  hostedNodeSchema,
  latestImageSchema,
  listNodesSchema,
  logsSchema,
  type HostedNode,
} from './schemas.js';
import { createResponseReader, describeIssue, type CallSpec, type Method } from './read-response.js';
import { createServiceTransport, SERVICE_MAX_BYTES, sizeText, type HostingClientOptions, type RetryInfo } from './service-transport.js';

export type { HostingClientOptions, RetryInfo };

export { SERVICE_MAX_BYTES, sizeText };
import { ServiceError } from './service-error.js';
import { redactText, registerSecret } from '../log.js';

const READY_STATUSES = new Set(['COMPLETED', 'COMPLETE', 'SUCCESS', 'SUCCEEDED', 'DONE', 'READY', 'FINISHED']);

export interface HostingClient {
  listNodes(): Promise<HostedNode[]>;
  getNode(id: string): Promise<HostedNode>;
  createNode(input: { name: string; network: 'regtest' | 'testnet'; webhookUrl?: string }): Promise<{ node: HostedNode; message?: string }>;
  destroyNode(id: string): Promise<{ message?: string }>;
  updateSettings(id: string, settings: { webhookUrl: string }): Promise<{ message?: string }>;
  startNode(id: string): Promise<{ message?: string }>;
  stopNode(id: string): Promise<{ message?: string }>;
  upgradeNode(id: string): Promise<{ message?: string }>;
  latestImage(): Promise<{ version: string }>;
  /** The raw parsed body (JSON value, or the text when it is not JSON): the webhooks room parses keys. */
  webhookPublicKey(): Promise<unknown>;
  exportLogs(id: string): Promise<{ taskId: string }>;
  getLogs(id: string, taskId: string): Promise<{ ready: boolean; urls: string[] }>;
  /** New mTLS material for a node's API. `privateKey` is a secret: masked in every log line from now on. */
  generateCert(id: string): Promise<{ certificate: string; certificateChain?: string; privateKey: string }>;
}

/** A client for the hosting service management API (docs/reference/service-interface.md §4.1). */
export function createHostingClient(opts: HostingClientOptions): HostingClient {
  const token = opts.token;
  // Its own token first (a client may be made before the token is registered), then the one redactor.
  const redact = (s: string): string => redactText(token ? s.split(token).join('[redacted]') : s);
  const { messageFrom, badResponse, requireJson, parseEnveloped, parseStrict, messageOf } = createResponseReader(redact);

  const { call } = createServiceTransport(opts, messageFrom);

  function nodePath(endpoint: string, id: string, suffix = ''): string {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new ServiceError({ endpoint, kind: 'invalid', detail: 'no node id given', hint: 'Give a node id: see `node list`.' });
    }
    return `/api/nodes/${encodeURIComponent(id)}${suffix}`;
  }

  async function checkUrl(endpoint: string, webhookUrl: unknown): Promise<void> {
    const problem = checkWebhookUrl(webhookUrl) ?? (await opts.checkWebhookTarget?.(webhookUrl as string));
    if (problem) {
      throw new ServiceError({
        endpoint,
        kind: 'invalid',
        detail: `not sent: ${redact(problem)}`,
        hint: 'Give an https:// URL on the internet that the service can reach (PUBLIC_URL of the bot).',
      });
    }
  }

  async function simple(method: Method, endpoint: string, path: string, body?: unknown): Promise<{ message?: string }> {
    const r = await call({ method, endpoint, path, body });
    return messageOf(r);
  }

  return {
    async listNodes() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/nodes', path: '/api/nodes' };
      const r = await call(spec);
      return parseEnveloped(spec, r, listNodesSchema).nodes;
    },

    async getNode(id) {
      const endpoint = 'GET /api/nodes/{id}';
      const spec: CallSpec = { method: 'GET', endpoint, path: nodePath(endpoint, id) };
      const r = await call(spec);
      // Envelope not documented: a bare node, `{ data: node }` or `{ node: node }`.
      const json = requireJson(spec, r);
      if (json && typeof json === 'object' && 'node' in json && !('nodeId' in json)) {
        return parseEnveloped(spec, { ...r, json: (json as Record<string, unknown>).node }, hostedNodeSchema);
      }
      return parseEnveloped(spec, r, hostedNodeSchema);
    },

    async createNode(input) {
      const endpoint = 'POST /api/nodes';
      if (input.network !== 'regtest' && input.network !== 'testnet') {
        throw new ServiceError({
          endpoint,
          kind: 'invalid',
          detail: `not sent: network must be regtest or testnet, not ${JSON.stringify(input.network)}`,
        });
      }
      if (typeof input.name !== 'string' || input.name.trim() === '') {
        throw new ServiceError({ endpoint, kind: 'invalid', detail: 'not sent: a node name is required' });
      }
      if (input.webhookUrl !== undefined) await checkUrl(endpoint, input.webhookUrl);
      const body: Record<string, unknown> = { name: input.name, network: input.network };
      if (input.webhookUrl !== undefined) body.settings = { webhookUrl: input.webhookUrl };
      const spec: CallSpec = { method: 'POST', endpoint, path: '/api/nodes', body };
      const r = await call(spec);
      const json = requireJson(spec, r);
      const parsed = createNodeSchema.safeParse(json);
      if (parsed.success) {
        return { node: parsed.data.data, message: parsed.data.message ? redact(parsed.data.message) : undefined };
      }
      // Documented as `{ data, message }`; a bare node is accepted too.
      const bare = hostedNodeSchema.safeParse(json);
      if (bare.success) return { node: bare.data, ...messageOf(r) };
      throw badResponse(endpoint, r.status, describeIssue(parsed.error, ''));
    },

    async destroyNode(id) {
      const endpoint = 'DELETE /api/nodes';
      if (typeof id !== 'string' || id.trim() === '') nodePath(endpoint, id);
      return simple('DELETE', endpoint, '/api/nodes', { destroyNodeId: id });
    },

    async updateSettings(id, settings) {
      const endpoint = 'POST /api/nodes/{id}/settings';
      const path = nodePath(endpoint, id, '/settings');
      await checkUrl(endpoint, settings?.webhookUrl);
      return simple('POST', endpoint, path, { settings: { webhookUrl: settings.webhookUrl } });
    },

    async startNode(id) {
      const endpoint = 'POST /api/nodes/{id}/start';
      return simple('POST', endpoint, nodePath(endpoint, id, '/start'));
    },

    async stopNode(id) {
      const endpoint = 'POST /api/nodes/{id}/stop';
      return simple('POST', endpoint, nodePath(endpoint, id, '/stop'));
    },

    async upgradeNode(id) {
      const endpoint = 'POST /api/nodes/{id}/upgrade';
      return simple('POST', endpoint, nodePath(endpoint, id, '/upgrade'));
    },

    async latestImage() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/nodes/latest-rln-image', path: '/api/nodes/latest-rln-image' };
      const r = await call(spec);
      // Shape not documented: a bare string (JSON or text), `{ version }`, `{ data: { version } }`,
      // or the version under another common key.
      if (r.notJson && r.text.trim() && !/^[[{"]/.test(r.text.trim())) return { version: r.text.trim() };
      const json = requireJson(spec, r);
      if (typeof json === 'string' && json.trim()) return { version: json.trim() };
      const normalise = (o: unknown): unknown => {
        if (!o || typeof o !== 'object') return o;
        const rec = o as Record<string, unknown>;
        if (rec.version !== undefined) return rec;
        for (const key of ['latestVersion', 'latest', 'image', 'tag', 'imageVersion']) {
          if (typeof rec[key] === 'string') return { ...rec, version: rec[key] };
        }
        if (typeof rec.data === 'string') return { version: rec.data };
        if (rec.data && typeof rec.data === 'object') return { ...rec, data: normalise(rec.data) };
        return rec;
      };
      const parsed = parseEnveloped(spec, { ...r, json: normalise(json) }, latestImageSchema);
      return { ...parsed, version: parsed.version };
    },

    async webhookPublicKey() {
      const spec: CallSpec = { method: 'GET', endpoint: 'GET /api/webhook-public-key', path: '/api/webhook-public-key' };
      const r = await call(spec);
      if (r.notJson) return r.text;
      if (r.json === undefined) throw badResponse(spec.endpoint, r.status, 'the body is empty, a public key was expected');
      return r.json;
    },

    async generateCert(id) {
      const endpoint = 'POST /api/nodes/{id}/generate-cert';
      const spec: CallSpec = { method: 'POST', endpoint, path: nodePath(endpoint, id, '/generate-cert') };
      const r = await call(spec);
      const parsed = parseEnveloped(spec, r, clientCertSchema);
      registerSecret(parsed.privateKey);
      return { certificate: parsed.certificate, certificateChain: parsed.certificateChain, privateKey: parsed.privateKey };
    },

    async exportLogs(id) {
      const endpoint = 'POST /api/nodes/{id}/logs';
      const spec: CallSpec = { method: 'POST', endpoint, path: nodePath(endpoint, id, '/logs') };
      const r = await call(spec);
      const parsed = parseEnveloped(spec, r, exportLogsSchema);
      return { taskId: parsed.taskId };
    },

    async getLogs(id, taskId) {
      const endpoint = 'GET /api/nodes/{id}/logs';
      if (typeof taskId !== 'string' || taskId.trim() === '') {
        throw new ServiceError({
          endpoint,
          kind: 'invalid',
          detail: 'no taskId given',
          hint: 'Start an export first (`node logs`), then use its taskId.',
        });
      }
      const spec: CallSpec = { method: 'GET', endpoint, path: nodePath(endpoint, id, '/logs'), query: { taskId } };
      const r = await call(spec);
      const json = requireJson(spec, r);
      if (Array.isArray(json)) {
        const urls = json.filter((u): u is string => typeof u === 'string');
        return { ready: urls.length > 0, urls };
      }
      // Every field of the logs schema is optional, so unwrap `{ data }` before parsing.
      const rec = json && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
      const inner =
        rec && rec.data && typeof rec.data === 'object' && !['urls', 'downloadUrls', 'url', 'ready'].some((k) => k in rec)
          ? rec.data
          : json;
      if (Array.isArray(inner)) {
        const urls = inner.filter((u): u is string => typeof u === 'string');
        return { ready: urls.length > 0, urls };
      }
      const parsed = parseStrict(spec, { ...r, json: inner }, logsSchema);
      const urls = [...(parsed.urls ?? []), ...(parsed.downloadUrls ?? []), ...(parsed.url ? [parsed.url] : [])];
      const statusReady = typeof parsed.status === 'string' && READY_STATUSES.has(parsed.status.toUpperCase());
      return { ready: urls.length > 0 || parsed.ready === true || statusReady, urls };
    },
  };
}
