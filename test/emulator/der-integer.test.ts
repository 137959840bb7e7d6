/**
 * The emulator's certificates carry a random 16-byte serial. DER has one encoding of an integer:
 * a serial that began 00 followed by a byte under 0x80 kept its leading zero, and OpenSSL refused
 * the certificate ("illegal padding"): one in 512, seen as a failed test/app/node-cert.test.ts.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertAuthority, derInteger } from '../../src/emulator/generate-cert.js';

const hex = (b: Buffer) => b.toString('hex');

describe('DER integers', () => {
  it('drop a leading zero the next byte does not need, and add one a high bit does', () => {
    expect(hex(derInteger(Buffer.from([0x00, 0x01])))).toBe('020101');
    expect(hex(derInteger(Buffer.from([0x00, 0x00, 0x7f])))).toBe('02017f');
    expect(hex(derInteger(Buffer.from([0x00, 0x80])))).toBe('02020080');
    expect(hex(derInteger(Buffer.from([0x80])))).toBe('02020080');
    expect(hex(derInteger(Buffer.from([0x00, 0x00])))).toBe('020100');
    expect(hex(derInteger(Buffer.from([0x12, 0x34])))).toBe('02021234');
  });

  it('a certificate the emulator issues parses, with its serial as given', () => {
    const ca = createCertAuthority();
    const issued = ca.issueServer(['localhost', '127.0.0.1']);
    const cert = new X509Certificate(issued.certificate);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.serialNumber).toMatch(/^[0-9A-F]+$/);
  });
});
