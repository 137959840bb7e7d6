/**
 * The composition root names each room's logger (`room: "discord"`); the adapter must not
 * bind it again, or every Discord log line carries the key twice.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createRegistry } from '../../../src/engine/index.js';
import { createDiscordAdapter } from '../../../src/chat/discord/index.js';
import type { Dispatcher } from '../../../src/engine/types.js';

describe('Discord adapter logging', () => {
  it('writes the room binding once per line', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
    const root = createLogger({ level: 'info', destination: out });
    const config = loadConfig({ DISCORD_APPLICATION_ID: '123456789012345678', DISCORD_PUBLIC_KEY: 'a'.repeat(64) });
    const adapter = createDiscordAdapter({
      config,
      dispatcher: {} as Dispatcher,
      registry: createRegistry([]),
      logger: root.child({ room: 'discord' }),
    });
    await adapter.start(); // HTTP interactions only: logs how to register /rln
    await adapter.stop();
    await new Promise((r) => setImmediate(r));
    const line = lines.find((l) => l.includes('HTTP interactions only'));
    expect(line).toBeDefined();
    expect(line!.match(/"room":/g)).toHaveLength(1);
  });
});
