// Validates node API requests and responses against the RLN OpenAPI documents vendored in src/node-api/openapi:
// f379330's (rln-openapi.yaml) and 6887cbf's (rln-openapi-6887cbf.yaml).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
export type Generation = 'f379330' | '6887cbf';

/** `<repo>/src/node-api/openapi/rln-openapi.yaml`; this file is `<repo>/test/support/openapi.ts`. */
export const OPENAPI_URL = new URL('../../src/node-api/openapi/rln-openapi.yaml', import.meta.url);
export const OPENAPI_URLS: Record<Generation, URL> = {
  f379330: OPENAPI_URL,
  '6887cbf': new URL('../../src/node-api/openapi/rln-openapi-6887cbf.yaml', import.meta.url),
};

/**
 * Where a document disagrees with the node of its own commit, for a body the bot sends: the f379330
 * document names `/checkproxyendpoint`'s field `proxy_url`, but f379330's routes.rs reads `proxy_endpoint`
 * (the document was corrected in de0ffac). Applied to requests only.
 */
const REQUEST_ERRATA: Record<Generation, (schemas: Json) => void> = {
  f379330: (schemas) => {
    schemas.CheckProxyEndpointRequest = {
      type: 'object',
      required: ['proxy_endpoint'],
      properties: { proxy_endpoint: { type: 'string' } },
    };
  },
  '6887cbf': () => undefined,
};

interface Loaded {
  doc: Json;
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}
const cache = new Map<Generation, Loaded>();

/**
 * OpenAPI 3.0/3.1 → JSON Schema: `nullable: true` becomes a type union with null; examples and discriminators
 * are dropped; `$ref`s point into the document registered as `id`. `closed`: every object that lists its
 * properties accepts no others (a request with an unknown field fails).
 */
function toJsonSchema(node: unknown, id: string, closed: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, id, closed));
  if (node === null || typeof node !== 'object') return node;
  const src = node as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === 'example' || key === 'discriminator' || key === 'nullable') continue;
    // `properties` maps names to schemas: convert each schema, never the map itself.
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toJsonSchema(v, id, closed)]));
      continue;
    }
    out[key] = toJsonSchema(value, id, closed);
  }
  if (closed && src.properties && src.additionalProperties === undefined) out.additionalProperties = false;
  if (src.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.$ref || out.oneOf || out.anyOf || out.allOf) return { anyOf: [out, { type: 'null' }] };
  }
  if (typeof out.$ref === 'string') out.$ref = `${id}${out.$ref}`;
  return out;
}

function load(gen: Generation = 'f379330'): Loaded {
  const hit = cache.get(gen);
  if (hit) return hit;
  const doc = parseYaml(readFileSync(OPENAPI_URLS[gen], 'utf8')) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true, formats: { int64: true, binary: true } });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const components = (doc.components ?? {}) as Json;
  ajv.addSchema({ $id: `openapi-${gen}.json`, components: toJsonSchema(components, `openapi-${gen}.json`, false) });
  const requestSchemas = structuredClone((components.schemas ?? {}) as Json);
  REQUEST_ERRATA[gen](requestSchemas);
  ajv.addSchema({
    $id: `openapi-${gen}-requests.json`,
    components: { schemas: toJsonSchema(requestSchemas, `openapi-${gen}-requests.json`, true) },
  });
  const loaded = { doc, ajv, validators: new Map<string, ValidateFunction>() };
  cache.set(gen, loaded);
  return loaded;
}

function operation(gen: Generation, endpoint: string, method: string): Json | undefined {
  const { doc } = load(gen);
  const path = endpoint.startsWith('/') ? endpoint : `/${endpoint}`;
  const item = (doc.paths as Json)[path] as Json | undefined;
  return item?.[method.toLowerCase()] as Json | undefined;
}

/** The endpoints and methods a document defines (default f379330's), e.g. `[['address', 'POST'], ...]`. */
export function documentedEndpoints(gen: Generation = 'f379330'): Array<[string, 'GET' | 'POST']> {
  const { doc } = load(gen);
  const out: Array<[string, 'GET' | 'POST']> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of Object.keys(item as Json)) out.push([path.slice(1), method.toUpperCase() as 'GET' | 'POST']);
  }
  return out;
}

/** Validates a 200 body of `method endpoint` against its response schema in a generation's document (default f379330's). */
export function validateResponse(
  endpoint: string,
  method: string,
  body: unknown,
  gen: Generation = 'f379330',
): { ok: boolean; errors: string } {
  const { ajv, validators } = load(gen);
  const key = `${gen} response ${method.toUpperCase()} ${endpoint}`;
  let validate = validators.get(key);
  if (!validate) {
    const op = operation(gen, endpoint, method);
    if (!op) return { ok: false, errors: `${method.toUpperCase()} ${endpoint} is not in the ${gen} OpenAPI document` };
    const schema = (((op.responses as Json)['200'] as Json)?.content as Json | undefined)?.['application/json'] as Json | undefined;
    if (!schema)
      return { ok: false, errors: `${method.toUpperCase()} ${endpoint} has no JSON 200 response in the ${gen} OpenAPI document` };
    validate = ajv.compile(toJsonSchema(schema.schema, `openapi-${gen}.json`, false) as object);
    validators.set(key, validate);
  }
  const ok = validate(body);
  return { ok, errors: ok ? '' : ajv.errorsText(validate.errors, { dataVar: `${gen} ${endpoint} response` }) };
}

/**
 * Validates a JSON request body against a generation's document: the fields it requires, their types,
 * and no field it does not list. An endpoint without a request body takes none (or `{}`).
 */
export function validateRequest(endpoint: string, method: string, body: unknown, gen: Generation): { ok: boolean; errors: string } {
  const { ajv, validators } = load(gen);
  const op = operation(gen, endpoint, method);
  const label = `${method.toUpperCase()} /${endpoint}`;
  if (!op) return { ok: false, errors: `${label} is not in the ${gen} OpenAPI document` };
  const content = (op.requestBody as Json | undefined)?.content as Json | undefined;
  if (!content) {
    const empty = body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0);
    return { ok: empty, errors: empty ? '' : `${label} takes no body in the ${gen} document, got ${JSON.stringify(body)}` };
  }
  const json = content['application/json'] as Json | undefined;
  if (!json) return { ok: true, errors: '' }; // multipart: the file itself
  const key = `${gen} request ${label}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(toJsonSchema(json.schema, `openapi-${gen}-requests.json`, true) as object);
    validators.set(key, validate);
  }
  const ok = validate(body ?? {});
  return { ok, errors: ok ? '' : ajv.errorsText(validate.errors, { dataVar: `${gen} ${label} request` }) };
}

/** The request body schema of an endpoint in f379330's document (JSON or multipart), with $refs resolved one level, or undefined. */
export function requestSchemaFor(endpoint: string): Json | undefined {
  const { doc } = load('f379330');
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
