// Validates node API responses against the RLN OpenAPI document vendored in src/node-api/openapi.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

/** `<repo>/src/node-api/openapi/rln-openapi.yaml`; this file is `<repo>/test/support/openapi.ts`. */
export const OPENAPI_URL = new URL('../../src/node-api/openapi/rln-openapi.yaml', import.meta.url);

let cached: { doc: Json; ajv: Ajv; validators: Map<string, ValidateFunction> } | undefined;

/** OpenAPI 3.0 → JSON Schema: `nullable: true` becomes a type union with null; examples and discriminators are dropped. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'example' || key === 'discriminator' || key === 'nullable') continue;
    out[key] = toJsonSchema(value);
  }
  if ((node as Json).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.$ref || out.oneOf || out.anyOf || out.allOf) return { anyOf: [out, { type: 'null' }] };
  }
  if (out.$ref && typeof out.$ref === 'string') out.$ref = `openapi.json${out.$ref}`;
  return out;
}

function load() {
  if (cached) return cached;
  const doc = parseYaml(readFileSync(OPENAPI_URL, 'utf8')) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const components = toJsonSchema((doc.components) ?? {});
  ajv.addSchema({ $id: 'openapi.json', components }, 'openapi.json');
  cached = { doc, ajv, validators: new Map() };
  return cached;
}

function operation(endpoint: string, method: string): Json | undefined {
  const { doc } = load();
  const path = endpoint.startsWith('/') ? endpoint : `/${endpoint}`;
  const item = (doc.paths as Json)[path] as Json | undefined;
  return item?.[method.toLowerCase()] as Json | undefined;
}

/** The endpoints and methods the document defines, e.g. `[['address', 'POST'], ...]`. */
export function documentedEndpoints(): Array<[string, 'GET' | 'POST']> {
  const { doc } = load();
  const out: Array<[string, 'GET' | 'POST']> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of Object.keys(item as Json)) out.push([path.slice(1), method.toUpperCase() as 'GET' | 'POST']);
  }
  return out;
}

/** Validates a 200 body of `method endpoint` against its response schema. */
export function validateResponse(endpoint: string, method: string, body: unknown): { ok: boolean; errors: string } {
  const { ajv, validators } = load();
  const key = `${method.toUpperCase()} ${endpoint}`;
  let validate = validators.get(key);
  if (!validate) {
    const op = operation(endpoint, method);
    if (!op) return { ok: false, errors: `${key} is not in the OpenAPI document` };
    const schema = (((op.responses as Json)['200'] as Json)?.content as Json | undefined)?.['application/json'] as Json | undefined;
    if (!schema) return { ok: false, errors: `${key} has no JSON 200 response in the OpenAPI document` };
    validate = ajv.compile(toJsonSchema(schema.schema) as object);
    validators.set(key, validate);
  }
  const ok = validate(body);
  return { ok, errors: ok ? '' : ajv.errorsText(validate.errors, { dataVar: key }) };
}

/** The request body schema of an endpoint (JSON or multipart), with $refs resolved one level, or undefined. */
export function requestSchemaFor(endpoint: string): Json | undefined {
  const { doc } = load();
  const path = endpoint.startsWith('/') ? endpoint : `/${endpoint}`;
  const item = (doc.paths as Json)[path] as Json | undefined;
  if (!item) return undefined;
  const op = (item.post ?? item.get) as Json;
  const content = (op.requestBody as Json | undefined)?.content as Json | undefined;
  if (!content) return undefined;
  const media = (content['application/json'] ?? content['multipart/form-data']) as Json;
  const schema = media.schema as Json;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return ((doc.components as Json).schemas as Json)[name] as Json;
  }
  return schema;
}
