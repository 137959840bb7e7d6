/**
 * A QR code of exactly the string a command shows (an invoice, an address), as a PNG file of
 * the message, so a phone wallet can scan it instead of someone copying a long string.
 */
import { messageFile, type MessageFile } from '../../src/vocabulary/index.js';

export async function qrFile(text: string, o: { name: string; title: string }): Promise<MessageFile> {
  // Medium error correction and the standard 4-module quiet zone: scannable from a screen.
  // Loaded on the first QR code: an idle bot does not hold the encoder and its PNG writer.
  const { default: QRCode } = await import('qrcode');
  const bytes = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
  return messageFile({
    name: o.name,
    mime: 'image/png',
    bytes,
    title: o.title,
    alt: `QR code of ${o.title.toLowerCase()}: ${text.slice(0, 80)}${text.length > 80 ? '…' : ''}`,
  });
}
