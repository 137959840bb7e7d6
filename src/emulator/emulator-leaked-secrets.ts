/**
 * Secret-looking values an emulated node prints in its log, for tests of masking. Not real
 * credentials. Each is printed in one of the forms a real node or its tools may print it (see
 * node-log-lines.ts).
 */
export const EMULATOR_LEAKED_SECRETS = {
  password: 'emu-node-password-Zq81x',
  token: 'emu-leaked-bearer-7f3a9c2e',
  mnemonic: 'abandon ability able about above absent absorb abstract absurd abuse access accident',
  /** Printed after `--password` on a command line. */
  flagPassword: 'emu-flag-pass-44Kq',
  /** The password of bitcoind's RPC URL (`http://rpcuser:…@`). */
  rpcPassword: 'emu-rpcpass-Vb72',
  /** An Authorization: Basic header's credentials, base64 (`emu-user:emu-basic-pw-9`). */
  basic: 'ZW11LXVzZXI6ZW11LWJhc2ljLXB3LTk=',
  /** A BIP-32 extended private key (a well-known test vector, holding nothing). */
  xprv: 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
};
