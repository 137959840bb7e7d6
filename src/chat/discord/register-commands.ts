import { Routes } from 'discord.js';
import { buildCommandData, type CommandRegistryLike, type ChatInputCommandData } from './build-command-data.js';
import { createDiscordRest } from './create-discord-rest.js';

export interface RegisterCommandsOptions {
  token: string;
  applicationId: string;
  /** DISCORD_API_URL (the `/api` base), for tests. */
  apiUrl?: string;
  /** Register in one guild (instant) instead of globally. */
  guildId?: string;
}

/**
 * PUTs the commands (`/rln` and one `/rln-<group>` per group) to Discord, in DISCORD_GUILD_ID's
 * server when it is set, else globally. A PUT replaces the whole list in that scope, so commands
 * no longer defined (the old single `/rln` with subcommand groups) are removed. Used at start-up
 * and by `npm run register-commands`; `remove: true` registers none (removes them all).
 */
export async function registerCommands(
  opts: RegisterCommandsOptions & { remove?: boolean },
  registry: CommandRegistryLike,
): Promise<ChatInputCommandData[]> {
  const data = opts.remove ? [] : buildCommandData(registry);
  const rest = createDiscordRest({ token: opts.token, apiUrl: opts.apiUrl, retries: 2 });
  const route = opts.guildId
    ? Routes.applicationGuildCommands(opts.applicationId, opts.guildId)
    : Routes.applicationCommands(opts.applicationId);
  try {
    await rest.put(route, { body: data });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `registering the /rln commands with Discord failed: ${why}. Check DISCORD_TOKEN and DISCORD_APPLICATION_ID, then run npm run register-commands`,
      { cause: e },
    );
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
  return data;
}
