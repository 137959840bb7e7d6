import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runDoctor } from '../../src/doctor/run-doctor.js';

describe('npm run doctor', () => {
  let emulator: Emulator;
  const dir = mkdtempSync(join(tmpdir(), 'rln-doctor-'));
  beforeAll(async () => {
    emulator = await startEmulator({ lifecycleDelayMs: 20, seed: 'demo' });
  });
  afterAll(async () => emulator.close());

  const doctor = async (env: Record<string, string>) => {
    const lines: string[] = [];
    const code = await runDoctor({ env, out: (l) => lines.push(l), timeoutMs: 3_000 });
    return { code, text: lines.join('\n') };
  };

  it('passes against the emulator with the right token', async () => {
    const { code, text } = await doctor({
      SERVICE_URL: emulator.url,
      SERVICE_API_TOKEN: emulator.token,
      DATABASE_PATH: join(dir, 'ok.db'),
    });
    expect(text).toContain(`token accepted (${emulator.nodes().length} nodes)`);
    expect(text).toMatch(/✓ service at /);
    expect(text).toMatch(/✓ webhook public key: fetched and parsed \(ed25519\); signatures verified through libsodium/);
    expect(text).toMatch(/✓ database/);
    expect(code).toBe(0);
  });

  it('fails with a clear message naming the refused token, and never prints it', async () => {
    const wrong = 'wrong-token-1234567';
    const { code, text } = await doctor({ SERVICE_URL: emulator.url, SERVICE_API_TOKEN: wrong, DATABASE_PATH: join(dir, 'bad.db') });
    expect(code).toBe(1);
    expect(text).toMatch(/✗ service at .*refused: the service did not accept SERVICE_API_TOKEN \(HTTP 401\)/);
    expect(text).not.toContain(wrong);
  });

  it('lists configuration problems and fails', async () => {
    const { code, text } = await doctor({ PUBLIC_URL: 'http://plain.example', SERVICE_URL: emulator.url });
    expect(code).toBe(1);
    expect(text).toMatch(/PUBLIC_URL must be HTTPS/);
    expect(text).toMatch(/SERVICE_API_TOKEN: required/);
  });

  it('says the service is unreachable in plain words', async () => {
    const { code, text } = await doctor({
      SERVICE_URL: 'http://127.0.0.1:9',
      SERVICE_API_TOKEN: 'x'.repeat(12),
      DATABASE_PATH: join(dir, 'u.db'),
    });
    expect(code).toBe(1);
    expect(text).toMatch(/✗ service at http:\/\/127\.0\.0\.1:9.*(unreachable|could not|connect)/i);
  });
});
