import { z } from 'zod';

/**
 * Node status values: the webhooks' (docs/reference/service-interface.md §3: RUNNING, STARTING, PAUSED, FAILED,
 * IN_PROGRESS) and the service's published description's (DESTROING, sic, and DESTROYED, during and after a
 * destroy). Other strings are kept, not rejected.
 */
export const NODE_STATUSES = ['RUNNING', 'STARTING', 'PAUSED', 'FAILED', 'IN_PROGRESS', 'DESTROING', 'DESTROYED'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** A string the service may leave out or send as null; both become an absent key. */
const optionalString = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined)
  .optional();

export const buildSchema = z.looseObject({
  buildNumber: z.number().int().optional(),
  buildStatus: z.string().optional(),
  buildComplete: z.boolean().optional(),
  timestamp: optionalString,
});
export type Build = z.infer<typeof buildSchema>;

export const hostedNodeSchema = z.looseObject({
  nodeId: z.string().min(1),
  name: z.string(),
  network: z.string(),
  status: z.string(),
  initialized: z.boolean().optional(),
  invoke_url: optionalString,
  settings: z
    .looseObject({ webhookUrl: optionalString })
    .nullish()
    .transform((v) => v ?? undefined)
    .optional(),
  builds: z
    .array(buildSchema)
    .nullish()
    .transform((v) => v ?? undefined)
    .optional(),
});

/** A node as the management API describes it (`status` is one of NODE_STATUSES or a newer string). Unknown fields are kept. */
export type HostedNode = z.infer<typeof hostedNodeSchema>;

/** The node a person means by `ref`: its id, its name, or its name in any case (in that order). */
export function findNode(nodes: HostedNode[], ref: string): HostedNode | undefined {
  return (
    nodes.find((n) => n.nodeId === ref) ??
    nodes.find((n) => n.name === ref) ??
    nodes.find((n) => n.name.toLowerCase() === ref.toLowerCase())
  );
}

export const listNodesSchema = z.looseObject({ nodes: z.array(hostedNodeSchema) });

export const messageSchema = z.looseObject({
  message: optionalString,
  error: optionalString,
});

export const createNodeSchema = z.looseObject({
  data: hostedNodeSchema,
  message: optionalString,
});

export const latestImageSchema = z.looseObject({
  version: z.string().min(1),
});

/** `POST /api/nodes/{id}/generate-cert`: mTLS material for the node API, PEM (`privateKey` is a secret). */
export const clientCertSchema = z.looseObject({
  certificate: z.string().min(1),
  certificateChain: z.string().optional(),
  privateKey: z.string().min(1),
  publicKey: z.string().optional(),
});

export const exportLogsSchema = z.looseObject({
  taskId: z.union([z.string().min(1), z.number().transform(String)]),
});

export const logsSchema = z.looseObject({
  urls: z.array(z.string()).nullish(),
  downloadUrls: z.array(z.string()).nullish(),
  url: z.string().nullish(),
  status: z.string().nullish(),
  ready: z.boolean().nullish(),
});
