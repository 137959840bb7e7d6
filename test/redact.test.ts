/**
 * The one redactor (src/redact.ts): a table plants each form a secret takes in a line a node, a
 * library or a user may print, and none of its secret part may pass; another table holds lines
 * with no secret, which must pass unchanged (a redactor that masks everything is no use in
 * `node logs`).
 */
import { describe, expect, it } from 'vitest';
import { redact, registerSecret, registerTypedSecret, BIP39_RUN_MIN_WORDS } from '../src/redact.js';

const MNEMONIC = 'abandon ability able about above absent absorb abstract absurd abuse access accident';
const MNEMONIC_24 =
  'legal winner thank year wave sausage worth useful legal winner thank yellow legal winner thank year wave sausage worth useful legal winner thank yellow';
const XPRV = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const TPRV = 'tprv8ZgxMBicQKsPd9TeAdPADNnSyH9SSUUbTVeFszDE23Ki6TBB5nCemPFDLCHE2VFZEwyDZgVmZ14aFvqKL3M4KAbE9Vos3GPL5CBvdZ5MzfG';
const BISCUIT =
  'EoQBChoKBXVzZXJzCgdhY2NvdW50GAMiCQoHCAQSAxiACBIkCAASIKDDRl6rP_Zq4kl1Y1mdtV4zvYsXQmRR2yB7vbWR1VyfGkAB8eR1b1HcbPIcbVAYbmb6sRmgX0DJ8Y_bQxo4ibnqtR8qKzG8NsVf1qvyS4v4fdAPBg';
const BASIC = Buffer.from('rpcuser:rpcpass-Zq81').toString('base64');

/** [what, line, the secret parts that must not pass]. */
const PLANTED: Array<[string, string, string[]]> = [
  ['an unquoted mnemonic after a colon', `mnemonic: ${MNEMONIC}`, MNEMONIC.split(' ').slice(1)],
  ['a quoted mnemonic in JSON-ish text', `body={"mnemonic": "${MNEMONIC}", "x": 1}`, MNEMONIC.split(' ')],
  ['bare seed words', `2026-11-22T10:00:00Z WARN rgb_lib: ${MNEMONIC}`, MNEMONIC.split(' ')],
  [
    'numbered seed words',
    `words: 1. abandon 2. ability 3. able 4. about 5. above 6. absent`,
    ['ability', 'able', 'about', 'above', 'absent'],
  ],
  ['24 seed words after "seed words"', `seed words = ${MNEMONIC_24}`, ['winner', 'sausage', 'useful', 'yellow']],
  ['a mnemonic in a JSON line', `{"level":"info","req":{"params":{"mnemonic":"${MNEMONIC}"}}}`, ['abandon ability']],
  ['a mnemonic in a JSON string', `{"level":"info","msg":"init with ${MNEMONIC}"}`, ['ability able about']],
  ['--password and its value', 'exec rgb-lightning-node --password hunter2-long --network regtest', ['hunter2-long']],
  ['--password=value', 'cmd --rpc-password=s3cr3t-pw --daemon', ['s3cr3t-pw']],
  ['--mnemonic "quoted words"', `restore --mnemonic "${MNEMONIC}"`, ['abandon', 'accident']],
  ['--api-key value', 'run --api-key AbC123xyz789', ['AbC123xyz789']],
  ['Authorization: Basic', `request header Authorization: Basic ${BASIC}`, [BASIC]],
  ['Authorization: Bearer', 'request header Authorization: Bearer abc.def.ghi-123', ['abc.def.ghi-123']],
  ['Authorization: Biscuit', `authorization: Biscuit ${BISCUIT}`, [BISCUIT.slice(0, 20)]],
  ['a JSON authorization header', `headers={"Authorization":"Bearer tok-998877"}`, ['tok-998877']],
  ['Bearer anywhere', 'retrying with Bearer tok_live_5566778899', ['tok_live_5566778899']],
  ['a bare Biscuit token', `node token ${BISCUIT} accepted`, [BISCUIT.slice(10, 40)]],
  ['credentials in an http URL', 'connecting to http://rpcuser:rpcpass-Zq81@bitcoind:18443/wallet', ['rpcpass-Zq81']],
  ['credentials in a postgres URL', 'db postgres://app:pg-Secret-77@db.internal:5432/rln', ['pg-Secret-77']],
  ['credentials in a URL, password with a colon', 'proxy https://u:p%40ss:word@proxy.example/', ['p%40ss', 'word@']],
  ['an xprv key', `master key ${XPRV}`, [XPRV.slice(4, 40)]],
  ['a tprv key', `derived ${TPRV}/84'/1'/0'`, [TPRV.slice(4, 40)]],
  [
    'a PEM private key',
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----',
    ['MIIEvQIBADAN', 'BKcwggSj'],
  ],
  ['password: value with spaces', 'unlock password: correct horse battery staple', ['correct', 'horse', 'battery', 'staple']],
  ['token: value, then another field', 'api token: tk 99 88, retries=3', ['tk 99 88']],
  ['password = value', 'password = hunter2-long user=bob', ['hunter2-long']],
  ['password=value, then text', 'INFO unlock password=hunter2-long ok', ['hunter2-long']],
  ['a pagerduty key argument', 'watch add alice pagerduty_key=R0UT1NGKEY0123456789abcdef', ['R0UT1NGKEY0123456789abcdef']],
  ['a routing key in JSON', '{"routing_key":"R0UT1NGKEY0123456789abcdef","event_action":"trigger"}', ['R0UT1NGKEY']],
  ['a secret in a query string', 'GET https://api.example/x?user=a&secret=qs-s3cret-1&x=1', ['qs-s3cret-1']],
  ['a signing secret', 'signing_secret: 8f14e45fceea167a5a36dedd4bea2543', ['8f14e45fceea167a5a36dedd4bea2543']],
  ['a private key field', 'private_key=0x4c0883a69102937d6231471b5dbb6204fe512961708279f3c8e5e7c3c6b3d6f1', ['4c0883a69102937d']],
  ['a Slack bot token', 'slack said invalid_auth for xoxb-1234-5678-abcdefghijkl', ['xoxb-1234']],
  ['a Slack app token', 'socket mode xapp-1-A0123-456-abcdef', ['xapp-1']],
  ['a Discord bot token', 'login with MTAyMzQ1Njc4OTAxMjM0NTY3OA.GabcDE.abcdefghijklmnopqrstuvwxyz0123', ['MTAyMzQ1Njc4OTAxMjM0NTY3OA']],
  ['a GitHub token', 'clone with ghp_abcdefghijklmnopqrstuvwxyz0123456789', ['ghp_abcdefghij']],
  ['an AWS access key', 'aws key AKIAIOSFODNN7EXAMPLE used', ['AKIAIOSFODNN7EXAMPLE']],
  ['a cookie header', 'Cookie: session=abcdef0123456789', ['abcdef0123456789']],
  ['a passphrase in YAML', '  passphrase: "my long pass phrase"', ['my long pass phrase']],
];

describe('redact: every planted form is masked', () => {
  it.each(PLANTED)('%s', (_what, line, secrets) => {
    const out = redact(line);
    for (const s of secrets) expect(out, `"${s}" in ${out}`).not.toContain(s);
    expect(out).toContain('[redacted]');
    // Masking twice changes nothing.
    expect(redact(out)).toBe(out);
  });

  it('masks every configured secret and every typed one, wherever it is', () => {
    registerSecret('configured-Service-Token-0042');
    registerTypedSecret('typed-unlock-pw-991');
    const out = redact('peer echoed configured-Service-Token-0042 and typed-unlock-pw-991 inline');
    expect(out).toBe('peer echoed [redacted] and [redacted] inline');
  });

  it(`masks a run of ${BIP39_RUN_MIN_WORDS} seed words, not a shorter one`, () => {
    expect(redact('abandon ability able about above')).toBe('[redacted]');
    expect(redact('abandon ability able about')).toBe('abandon ability able about');
  });
});

const KEPT = [
  '2026-11-22T10:00:00Z INFO lightning::ln::peer_handler: peer 03ab… ping ok',
  'GET /nodeinfo 200 4 ms',
  'synced to block 800123',
  'peer pubkey=03b79a4bc1ec365524b4fab9a39eb133753646babb5a1da5c4bc2c18b3a25a6ca3 connected',
  'txid 5c2bd3b1c04a1d3e2df2f1c0a5c8e7f88d4b0dd1f6a2c7d8e9f0a1b2c3d4e5f6 confirmed',
  'invoice lnbcrt10u1pjx7k8fpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq accepted',
  'asset rgb:2dkSTbr-jFhznbPmo-TQafzswCN-av4gTsJjX-ttx6CNou5-M98k8Zd issued',
  'Basic settings loaded; token_count=3 has_password=false',
  'the channel is open and the peer is connected',
  'fetched https://proxy.example/json-rpc in 40 ms',
  'password: null',
  'unlock ok: password accepted',
  'key id=7 rotated',
];

describe('redact: lines without a secret pass unchanged', () => {
  it.each(KEPT)('%s', (line) => {
    expect(redact(line)).toBe(line);
  });
});
