/** Reads PNGs as a chat client would: pngjs decodes the image, jsQR (independent of the encoder) reads a QR code in it. */
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';

// jsqr is CommonJS whose typings declare a default export: require gives the function itself.
type JsQr = typeof import('jsqr')['default'];
const required = createRequire(import.meta.url)('jsqr') as JsQr & { default?: JsQr };
const jsQR: JsQr = required.default ?? required;

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function readPng(bytes: Buffer): { width: number; height: number; data: Buffer } {
  expectPng(bytes);
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

export function expectPng(bytes: Buffer): void {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG: the signature is missing');
}

/** The text of the QR code in a PNG, or undefined when none can be read. */
export function decodeQr(bytes: Buffer): string | undefined {
  const { width, height, data } = readPng(bytes);
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width, height)?.data;
}
