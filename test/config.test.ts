import { describe, it, expect } from 'vitest';
import { ConfigError, loadConfig, secretValues } from '../src/config.js';
import { redactText, registerSecret } from '../src/log.js';

describe('loadConfig', () => {
  it('runs the demo with no environment', () => {
    const c = loadConfig({});
    expect(c.demo).toBe(true);
    expect(c.slack.mode).toBe('off');
    expect(c.discord.mode).toBe('off');
    expect(c.WEBHOOK_SIGNATURE_HEADER).toBe('X-Service-Signature');
  });

  it('picks Socket Mode, HTTP mode, gateway and HTTP interactions from the credentials given', () => {
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }).slack.mode).toBe('socket');
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }).slack.mode).toBe('http');
    expect(loadConfig({ DISCORD_TOKEN: 't', DISCORD_APPLICATION_ID: '1' }).discord.mode).toBe('gateway');
    expect(loadConfig({ DISCORD_PUBLIC_KEY: 'a'.repeat(64), DISCORD_APPLICATION_ID: '1' }).discord.mode).toBe('http');
  });

  it('lists every problem at once, without echoing secret values', () => {
    const secret = 'not-a-bot-token-secret';
    let err: unknown;
    try {
      loadConfig({ SLACK_BOT_TOKEN: secret, PORT: '70000', PUBLIC_URL: 'http://x.example', SERVICE_URL: 'https://svc.example' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toMatch(/SLACK_BOT_TOKEN/);
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/PUBLIC_URL must be HTTPS/);
    expect(String(err)).not.toContain(secret);
  });

  it('parses role principals', () => {
    const c = loadConfig({ ADMIN_USERS: 'slack:U1, discord:42,slack-group:S9', OPERATOR_USERS: 'discord-role:7' });
    expect(c.ADMIN_USERS).toEqual(['slack:U1', 'discord:42', 'slack-group:S9']);
    expect(c.OPERATOR_USERS).toEqual(['discord-role:7']);
  });
});

describe('the hardening variables', () => {
  it('defaults WEBHOOK_BODY_LIMIT to 64 KiB and MAX_FUTURE_SKEW_S to 60', () => {
    const c = loadConfig({});
    expect(c.WEBHOOK_BODY_LIMIT).toBe(64 * 1024);
    expect(c.MAX_FUTURE_SKEW_S).toBe(60);
  });

  it('reads WEBHOOK_BODY_LIMIT in bytes or with a unit, and says what is wrong otherwise', () => {
    expect(loadConfig({ WEBHOOK_BODY_LIMIT: '131072' }).WEBHOOK_BODY_LIMIT).toBe(131072);
    expect(loadConfig({ WEBHOOK_BODY_LIMIT: '128KiB' }).WEBHOOK_BODY_LIMIT).toBe(131072);
    expect(loadConfig({ WEBHOOK_BODY_LIMIT: '1MiB' }).WEBHOOK_BODY_LIMIT).toBe(1024 * 1024);
    for (const bad of ['lots', '10', '64GiB']) {
      expect(() => loadConfig({ WEBHOOK_BODY_LIMIT: bad })).toThrow(/WEBHOOK_BODY_LIMIT must be a size from 1KiB to 16MiB/);
    }
    expect(() => loadConfig({ MAX_FUTURE_SKEW_S: '-1' })).toThrow(ConfigError);
  });

  it('reads REPORT_RELOAD_S in seconds (default 5, a fraction accepted), and says what is wrong otherwise', () => {
    expect(loadConfig({}).REPORT_RELOAD_S).toBe(5);
    expect(loadConfig({ REPORT_RELOAD_S: '0.5' }).REPORT_RELOAD_S).toBe(0.5);
    for (const bad of ['0', '-1', '7200']) {
      expect(() => loadConfig({ REPORT_RELOAD_S: bad })).toThrow(/REPORT_RELOAD_S must be between 0.1 and 3600 \(seconds\)/);
    }
    expect(() => loadConfig({ REPORT_RELOAD_S: 'often' })).toThrow(/REPORT_RELOAD_S must be a number of seconds, e.g. 5/);
  });

  it('reads HELPER_THREADS_NICE (default 10, 0 to leave the threads be), and says what is wrong otherwise', () => {
    expect(loadConfig({}).HELPER_THREADS_NICE).toBe(10);
    expect(loadConfig({ HELPER_THREADS_NICE: '0' }).HELPER_THREADS_NICE).toBe(0);
    expect(loadConfig({ HELPER_THREADS_NICE: '19' }).HELPER_THREADS_NICE).toBe(19);
    for (const bad of ['-1', '20', '2.5', 'low']) {
      expect(() => loadConfig({ HELPER_THREADS_NICE: bad })).toThrow(/HELPER_THREADS_NICE must be a whole number from 0 to 19, e\.g\. 10/);
    }
  });

  it('reads DISCORD_GUILD_ID as a numeric server id', () => {
    expect(loadConfig({ DISCORD_GUILD_ID: '123456789' }).DISCORD_GUILD_ID).toBe('123456789');
    expect(() => loadConfig({ DISCORD_GUILD_ID: 'my-server' })).toThrow(/DISCORD_GUILD_ID must be the numeric server/);
  });

  it('reads DATABASE_URL as a PostgreSQL URL (postgres:// or postgresql://), and refuses anything else by name', () => {
    expect(loadConfig({}).DATABASE_URL).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://bot:pw@db:5432/rln' }).DATABASE_URL).toBe('postgres://bot:pw@db:5432/rln');
    expect(loadConfig({ DATABASE_URL: 'postgresql://bot@db/rln' }).DATABASE_URL).toBe('postgresql://bot@db/rln');
    for (const bad of ['mysql://bot:pw@db/rln', './data/bot.db', 'postgres://', 'http://db:5432/rln']) {
      let err: unknown;
      try {
        loadConfig({ DATABASE_URL: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.join('\n')).toMatch(
        /^DATABASE_URL: DATABASE_URL must be a PostgreSQL URL, e\.g\. postgres:\/\//,
      );
      expect(String(err)).not.toContain('pw@');
    }
  });

  it('counts DATABASE_URL and its password (as written and decoded) among the secrets, so neither is ever logged', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://bot:s3cr%2Fet-pass@db:5432/rln' });
    expect(secretValues(config)).toEqual(
      expect.arrayContaining(['postgres://bot:s3cr%2Fet-pass@db:5432/rln', 's3cr%2Fet-pass', 's3cr/et-pass']),
    );
    for (const v of secretValues(config)) registerSecret(v);
    expect(redactText('connecting with password s3cr/et-pass to postgres://bot:s3cr%2Fet-pass@db:5432/rln')).not.toMatch(/s3cr/);
  });

  it('counts a password given in the query string of DATABASE_URL among the secrets too', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://bot@db:5432/rln?password=hunter22&sslpassword=keypass33&sslmode=require' });
    expect(secretValues(config)).toEqual(expect.arrayContaining(['hunter22', 'keypass33']));
    for (const v of secretValues(config)) registerSecret(v);
    expect(redactText('password hunter22, key passphrase keypass33')).not.toMatch(/hunter22|keypass33/);
  });
});
