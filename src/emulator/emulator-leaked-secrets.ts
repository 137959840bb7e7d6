/** Secret-looking values an emulated node prints in its log, for tests of masking. Not real credentials. */
export const EMULATOR_LEAKED_SECRETS = {
  password: 'emu-node-password-Zq81x',
  token: 'emu-leaked-bearer-7f3a9c2e',
  mnemonic: 'abandon ability able about above absent absorb abstract absurd abuse access accident',
};
