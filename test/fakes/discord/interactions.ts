/**
 * Builders for interaction payloads as Discord sends them (gateway `d` or HTTP body), and a
 * signer for HTTP interactions (an Ed25519 key pair generated in the test).
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { fakeUser, messageObject, snowflake } from './records.js';

export interface Who {
  userId: string;
  roles?: string[];
  guildId?: string;
  channelId?: string;
}

function base(type: number, who: Who, applicationId: string) {
  const guildId = who.guildId ?? '900000000000000001';
  const channelId = who.channelId ?? '900000000000000002';
  return {
    id: snowflake(),
    application_id: applicationId,
    type,
    token: `itoken-${snowflake()}`,
    version: 1,
    guild_id: guildId,
    channel_id: channelId,
    channel: { id: channelId, type: 0, guild_id: guildId, name: 'ops' },
    member: {
      user: fakeUser(who.userId),
      roles: who.roles ?? [],
      nick: null,
      permissions: '0',
      joined_at: new Date(0).toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
    },
    entitlements: [],
    authorizing_integration_owners: {},
    context: 0,
    locale: 'en-US',
    guild_locale: 'en-US',
    app_permissions: '0',
  };
}

/** `/rln-<group> <sub> opt=value…`, or `/rln <sub>` for the top-level actions (group omitted). */
export function commandInteraction(
  applicationId: string,
  who: Who,
  group: string | undefined,
  sub: string,
  options: Record<string, string | number | boolean> = {},
  focused?: string,
) {
  const leaf = Object.entries(options).map(([name, value]) => ({
    name,
    type: typeof value === 'number' ? 10 : typeof value === 'boolean' ? 5 : 3,
    value,
    ...(focused === name ? { focused: true } : {}),
  }));
  const subOpt = { name: sub, type: 1, options: leaf };
  return {
    ...base(focused ? 4 : 2, who, applicationId),
    data: {
      id: snowflake(),
      name: group ? `rln-${group}` : 'rln',
      type: 1,
      options: [subOpt],
    },
  };
}

export function autocompleteInteraction(applicationId: string, who: Who, group: string, sub: string, option: string, typed: string) {
  return commandInteraction(applicationId, who, group, sub, { [option]: typed }, option);
}

/** A button click on a message the bot posted (`flags`: that message's, e.g. IS_COMPONENTS_V2). */
export function buttonInteraction(
  applicationId: string,
  who: Who,
  customId: string,
  message?: { id: string; channelId: string; flags?: number },
) {
  const b = base(3, who, applicationId);
  const channelId = message?.channelId ?? b.channel_id;
  return {
    ...b,
    message: messageObject(
      channelId,
      message?.id ?? snowflake(),
      { components: [{ type: 1, components: [{ type: 2, style: 1, label: 'x', custom_id: customId }] }], flags: message?.flags },
      { ...fakeUser(applicationId, 'rln-bot'), bot: true },
    ),
    data: { custom_id: customId, component_type: 2 },
  };
}

export function modalSubmitInteraction(applicationId: string, who: Who, customId: string, values: Record<string, string>) {
  return {
    ...base(5, who, applicationId),
    data: {
      custom_id: customId,
      // As Discord sends a modal of Labels (type 18) today: each wraps one text input; a Text
      // Display (type 10) comes back with only its id.
      components: [
        { type: 10, id: 1 },
        ...Object.entries(values).map(([id, value], i) => ({
          type: 18,
          id: i + 2,
          component: { type: 4, id: i + 100, custom_id: id, value },
        })),
      ],
    },
  };
}

export function pingInteraction(applicationId: string) {
  return { id: snowflake(), application_id: applicationId, type: 1, token: `itoken-${snowflake()}`, version: 1 };
}

export interface InteractionSigner {
  /** DISCORD_PUBLIC_KEY: 64 hex characters. */
  publicKeyHex: string;
  /** Headers for a body signed now (or with another key: `foreign`). */
  headers(rawBody: string, opts?: { timestamp?: string }): Record<string, string>;
}

export function createInteractionSigner(): InteractionSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  const publicKeyHex = der.subarray(der.length - 32).toString('hex');
  return {
    publicKeyHex,
    headers(rawBody, o = {}) {
      return signHeaders(privateKey, rawBody, o.timestamp);
    },
  };
}

export function signHeaders(
  privateKey: KeyObject,
  rawBody: string,
  timestamp = String(Math.floor(Date.now() / 1000)),
): Record<string, string> {
  const signature = sign(null, Buffer.from(timestamp + rawBody), privateKey).toString('hex');
  return { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp };
}
