/**
 * A node API request's body checked against its endpoint's schema and written as JSON or a
 * multipart form, and an answer's body read (lossless JSON) and checked against its schema, each
 * problem told as a NodeApiError that names the field. Password and mnemonic fields are
 * registered as secrets both ways, so no log line or error text shows them afterwards.
 */
import type { EndpointDef, EndpointName } from './endpoints.js';
import { NodeApiError } from './node-api-error.js';
import { parseLosslessJson, stringifyJson } from './json.js';
import { registerTypedSecret } from '../log.js';
import { firstBadLongList, mayHoldLongList } from './bounded-read.js';

/** Request and response fields that hold a secret: masked in every log line and error text. */
const SECRET_FIELD_RE = /password|mnemonic/i;

function registerSecretFields(value: unknown): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' && SECRET_FIELD_RE.test(k)) registerTypedSecret(v);
  }
}

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `a number above 2^53 (${value})`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

export function invalid(name: EndpointName, field: string, message: string): NodeApiError {
  return new NodeApiError({ endpoint: name, kind: 'invalid-request', field, message: `node API /${name}: ${message}` });
}

/** A request body checked against a schema, as JSON text or multipart form. */
export function encode(
  name: EndpointName,
  schema: EndpointDef['request'],
  body: unknown,
): { data: unknown; requestBody: string | FormData } {
  const checked = schema.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw invalid(name, issuePath(issue.path), `request field ${issuePath(issue.path)} is invalid: ${issue.message}`);
  }
  // Whoever called (a command, a report), a password sent to the node is masked from now on.
  registerSecretFields(checked.data);
  if (checked.data instanceof Object && 'file' in checked.data && (checked.data as { file: unknown }).file instanceof Uint8Array) {
    const media = checked.data as { file: Uint8Array; mime?: string; filename?: string };
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(media.file)], { type: media.mime ?? 'application/octet-stream' }),
      media.filename ?? 'media',
    );
    return { data: checked.data, requestBody: form };
  }
  return { data: checked.data, requestBody: stringifyJson(checked.data ?? {}) };
}

export function decode(name: EndpointName, schema: EndpointDef['response'], text: string): unknown {
  const label = `/${name}`;
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : parseLosslessJson(text);
  } catch {
    throw new NodeApiError({
      endpoint: name,
      kind: 'malformed',
      message: `node API ${label} answered a body that is not valid JSON (${text.length} bytes, truncated?)`,
    });
  }
  // A long list of the wrong elements is one summarised error, checked before the schema makes an issue per element.
  const longList = mayHoldLongList(text) ? firstBadLongList(schema, parsed) : undefined;
  if (longList) {
    throw new NodeApiError({
      endpoint: name,
      kind: 'invalid-response',
      field: longList.path,
      message: `node API ${label} answered an unexpected shape: field ${longList.path} of a list of ${longList.length}: ${longList.message} (the rest was not checked)`,
    });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issuePath(issue.path);
    throw new NodeApiError({
      endpoint: name,
      kind: 'invalid-response',
      field,
      message: `node API ${label} answered an unexpected shape: field ${field}: ${issue.message} (got ${describe(valueAt(parsed, issue.path))})`,
    });
  }
  // The mnemonic `/init` answers is shown once, privately; never in a log line after that.
  registerSecretFields(result.data);
  return result.data;
}
