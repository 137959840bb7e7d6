/**
 * docker-compose.yml, checked without Docker: PostgreSQL 17 with a volume and a health check,
 * two bot replicas built from the Dockerfile on that database, and Caddy in front, sending to
 * both and checking their /healthz.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

interface Service {
  image?: string;
  build?: string;
  env_file?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  ports?: string[];
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
/** Compose's ${VAR:?message} and ${VAR:-default}, with the values of .env. */
const interpolate = (s: string, env: Record<string, string>) =>
  s.replace(/\$\{(\w+)(?::[?-][^}]*)?\}/g, (_m, name: string) => env[name] ?? '');

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('has PostgreSQL 17 (official image) with a named volume and a pg_isready health check', () => {
    const pg = services.postgres;
    expect(pg.image).toBe('postgres:17');
    expect(pg.volumes).toContain('pgdata:/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty('pgdata');
    expect(pg.healthcheck?.test.join(' ')).toMatch(/pg_isready -U rln -d rln/);
    expect(pg.environment).toMatchObject({ POSTGRES_USER: 'rln', POSTGRES_DB: 'rln' });
  });

  it('runs two replicas from the Dockerfile on that database, once it is healthy, credentials from .env', () => {
    const bots = ['bot-1', 'bot-2'].map((name) => services[name]);
    for (const bot of bots) {
      expect(bot.build).toBe('.');
      expect(bot.env_file).toEqual(['.env']);
      expect(bot.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      const url = interpolate(bot.environment!.DATABASE_URL, { POSTGRES_PASSWORD: 'pw-from-env' });
      expect(url).toBe('postgres://rln:pw-from-env@postgres:5432/rln');
      // What the bot's configuration check accepts.
      expect(loadConfig({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
      expect(bot.environment!.PORT).toBe('3000');
    }
    // The password is the same one PostgreSQL is given.
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/EXPOSE 3000/);
  });

  it('puts Caddy (official image) in front, round-robin over both replicas with health checks on /healthz', () => {
    const proxy = services.proxy;
    expect(proxy.image).toMatch(/^caddy:2/);
    expect(proxy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(proxy.depends_on).toEqual(['bot-1', 'bot-2']);
    expect(caddyfile).toMatch(/reverse_proxy bot-1:3000 bot-2:3000 \{/);
    expect(caddyfile).toMatch(/lb_policy round_robin/);
    expect(caddyfile).toMatch(/health_uri \/healthz/);
    expect(caddyfile).toMatch(/health_status 200/);
  });

  it('.env.example names every variable the compose file needs, and .env stays out of git and the image', () => {
    const example = readFileSync('.env.example', 'utf8');
    expect(example).toMatch(/^POSTGRES_PASSWORD=/m);
    expect(readFileSync('.gitignore', 'utf8').split('\n')).toContain('.env');
    expect(readFileSync('.dockerignore', 'utf8').split('\n')).toContain('.env');
  });
});
