import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Built from parts so that this file does not match itself.
const outside = new RegExp(['\\.\\.', 'shared'].join('[\\\\/]'));

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  return out.toString('utf8').split('\0').filter(Boolean);
}

describe('the project is self-contained', () => {
  it('has no tracked file that refers to a folder beside the checkout', () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => {
      const path = `${root}/${file}`;
      try {
        if (!statSync(path).isFile()) return false;
      } catch {
        return false; // deleted in the work tree
      }
      return outside.test(readFileSync(path, 'utf8'));
    });
    expect(offenders).toEqual([]);
  });

  it('ships the RLN OpenAPI document the tests validate against', () => {
    const doc = readFileSync(`${root}/src/node-api/openapi/rln-openapi.yaml`, 'utf8');
    expect(doc).toMatch(/^openapi: /m);
    expect(doc).toContain('/sendbtc');
  });
});
