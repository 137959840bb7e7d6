/**
 * What an argument accepts, in words a user reads, instead of zod's validator texts
 * ("Invalid input: expected number, received NaN", "Too small: expected string to have >=66
 * characters"). The dispatcher names the argument and adds the usage and an example; a schema's
 * own message (`.regex(re, 'a 66-hex-digit pubkey')`) still wins over these. zod's configuration
 * is global, so the service clients' response checks read these words too.
 */
import { z } from 'zod';

type Issue = {
  code?: string;
  expected?: unknown;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  values?: unknown[];
  format?: string;
  input?: unknown;
  /** The schema that raised it: a whole-number schema (`.int()`) says so even when the input is no number at all. */
  inst?: unknown;
};

/** Whether the schema that raised an issue takes whole numbers only (zod's `.int()`). */
const wholeOnly = (inst: unknown): boolean => {
  const o = inst as { isInt?: unknown; format?: unknown } | null | undefined;
  return o?.isInt === true || o?.format === 'safeint';
};

export function argIssueText(iss: Issue): string | undefined {
  const n = (v: unknown) => (typeof v === 'bigint' ? v.toString() : String(v));
  switch (iss.code) {
    case 'invalid_type': {
      const what =
        // `limit=abc` on a `.int()` field fails as a number, before the whole-number check (P25).
        iss.expected === 'int' || (iss.expected === 'number' && wholeOnly(iss.inst))
          ? 'a whole number, such as 5'
          : iss.expected === 'number' || iss.expected === 'bigint'
            ? 'a number, such as 5 or 2.5'
            : iss.expected === 'boolean'
              ? 'true or false (also yes/no, on/off)'
              : iss.expected === 'string'
                ? 'text'
                : undefined;
      if (!what) return undefined;
      // The same messages serve the service clients' response checks, where a field may be absent.
      return iss.input === undefined ? `missing: expected ${what}` : `expected ${what}`;
    }
    case 'too_small': {
      const or = iss.inclusive === false ? 'more than' : 'at least';
      if (iss.origin === 'string') return `expected ${or} ${n(iss.minimum)} character${n(iss.minimum) === '1' ? '' : 's'}`;
      if (iss.origin === 'number' || iss.origin === 'int' || iss.origin === 'bigint') return `must be ${or} ${n(iss.minimum)}`;
      if (iss.origin === 'array') return `give ${or} ${n(iss.minimum)}`;
      return undefined;
    }
    case 'too_big': {
      const or = iss.inclusive === false ? 'less than' : 'at most';
      if (iss.origin === 'string') return `expected ${or} ${n(iss.maximum)} characters`;
      if (iss.origin === 'number' || iss.origin === 'int' || iss.origin === 'bigint') return `must be ${or} ${n(iss.maximum)}`;
      return undefined;
    }
    case 'invalid_value':
      if (iss.values?.includes('true') && iss.values.includes('false')) return 'expected true or false (also yes/no, on/off)';
      return iss.values?.length ? `expected one of ${iss.values.map(String).join(', ')}` : undefined;
    case 'invalid_format':
      if (iss.format === 'url') return 'expected a URL, such as https://example.com/hook';
      return iss.format ? `expected ${iss.format === 'regex' ? 'another form' : `a ${iss.format}`}` : undefined;
    default:
      return undefined;
  }
}

z.config({ customError: (iss) => argIssueText(iss) });
