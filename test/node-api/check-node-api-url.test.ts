import { describe, it, expect } from 'vitest';
import { checkNodeApiUrl } from '../../src/node-api/index.js';

describe('checkNodeApiUrl', () => {
  it('accepts HTTPS anywhere and plain HTTP only on loopback', () => {
    expect(checkNodeApiUrl('https://nodes.example/nodes/u/n1')).toBeUndefined();
    expect(checkNodeApiUrl('http://127.0.0.1:8080/nodes/u/n1')).toBeUndefined();
    expect(checkNodeApiUrl('http://localhost:3001')).toBeUndefined();
    expect(checkNodeApiUrl('http://[::1]:3001')).toBeUndefined();
  });

  it('refuses plain HTTP to another host, and nonsense, saying why', () => {
    expect(checkNodeApiUrl('http://nodes.example/nodes/u/n1')).toMatch(/not HTTPS \(http:\/\/nodes\.example\).*clear/);
    expect(checkNodeApiUrl('ftp://nodes.example')).toMatch(/not HTTPS/);
    expect(checkNodeApiUrl('not a url')).toMatch(/not a valid URL/);
  });
});
