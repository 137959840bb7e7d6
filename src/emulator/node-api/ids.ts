import { createHash, randomBytes } from 'node:crypto';

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const hex = (bytes = 32) => randomBytes(bytes).toString('hex');
export const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
export const nowSec = () => Math.floor(Date.now() / 1000);

function pick(alphabet: string, n: number): string {
  const bytes = randomBytes(n);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** A compressed secp256k1-looking public key, stable for a node id. */
export function pubkeyFor(nodeId: string): string {
  const digest = sha256(`rln-emulator:${nodeId}`);
  return (parseInt(digest[0], 16) % 2 === 0 ? '02' : '03') + digest;
}

export const isPubkey = (s: string) => /^0[23][0-9a-f]{64}$/.test(s);
export const isHex32 = (s: string) => /^[0-9a-f]{64}$/.test(s);

export type BitcoinNetwork = 'Mainnet' | 'Testnet' | 'Testnet4' | 'Signet' | 'Regtest';

export function bitcoinNetwork(network: string): BitcoinNetwork {
  switch (network.toLowerCase()) {
    case 'mainnet':
    case 'bitcoin':
      return 'Mainnet';
    case 'testnet':
      return 'Testnet';
    case 'testnet4':
      return 'Testnet4';
    case 'signet':
      return 'Signet';
    default:
      return 'Regtest';
  }
}

const hrp = (n: BitcoinNetwork) => (n === 'Mainnet' ? 'bc' : n === 'Regtest' ? 'bcrt' : 'tb');

export const newAddress = (n: BitcoinNetwork) => `${hrp(n)}1q${pick(BECH32, 38)}`;
export const newAssetId = () => `rgb:${[8, 7, 7, 7, 7, 7, 7].map((len) => pick(B58, len)).join('-')}`;
export const newRecipientId = (n: BitcoinNetwork, witness: boolean) =>
  `${hrp(n)}:${witness ? 'wvout' : 'utxob'}:${[8, 7, 7, 7, 7, 7, 7].map((len) => pick(B58, len)).join('-')}`;
export const outpoint = (txid: string, vout: number) => `${txid}:${vout}`;

/** A bolt11-looking invoice string; the emulator looks invoices up by their exact text. */
export function lnInvoiceText(n: BitcoinNetwork, amtMsat: number | undefined): string {
  const prefix = n === 'Mainnet' ? 'lnbc' : n === 'Regtest' ? 'lnbcrt' : 'lntb';
  const amount = amtMsat === undefined ? '' : `${amtMsat * 10}p`;
  return `${prefix}${amount}1p${pick(BECH32, 300)}`;
}

export function mnemonic(): string {
  const words = [
    'abandon',
    'ability',
    'able',
    'about',
    'above',
    'absent',
    'absorb',
    'abstract',
    'absurd',
    'abuse',
    'access',
    'accident',
    'account',
    'accuse',
    'achieve',
    'acid',
    'acoustic',
    'acquire',
    'across',
    'act',
    'action',
    'actor',
    'actress',
    'actual',
    'adapt',
    'add',
    'addict',
    'address',
    'adjust',
    'admit',
    'adult',
    'advance',
  ];
  const bytes = randomBytes(12);
  return [...bytes].map((b) => words[b % words.length]).join(' ');
}

export const tpub = (seed: string) => `tpub${pick(B58, 4)}${sha256(seed).slice(0, 60)}`.slice(0, 111);
