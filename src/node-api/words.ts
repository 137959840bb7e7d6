/**
 * The node API's enum values in words, for people. Values of either generation are known; a value
 * neither knows (a newer image's) is shown as it came, never hidden or refused.
 */
const TRANSFER_STATUS: Record<string, string> = {
  Initiated: 'Initiated (not sent yet)',
  WaitingCounterparty: 'Waiting for the counterparty',
  WaitingSafeHeight: 'Waiting for a safe block height',
  WaitingConfirmations: 'Waiting for confirmations',
  WaitingBroadcast: 'Waiting to be broadcast',
  Settled: 'Settled',
  Failed: 'Failed',
};
const TRANSFER_KIND: Record<string, string> = {
  Issuance: 'Issuance',
  ReceiveBlind: 'Receive (blinded UTXO)',
  ReceiveWitness: 'Receive (witness output)',
  Send: 'Send',
  Inflation: 'Inflation',
  Burn: 'Burn',
};
const TRANSACTION_TYPE: Record<string, string> = {
  RgbSend: 'RGB send',
  Drain: 'Drain',
  CreateUtxos: 'Create UTXOs',
  User: 'User',
  SendBtc: 'BTC send',
  Incoming: 'Incoming',
};
const ASSET_SCHEMA: Record<string, string> = {
  Nia: 'NIA',
  Uda: 'UDA',
  Cfa: 'CFA',
  Ifa: 'IFA (inflatable)',
};

const word =
  (table: Record<string, string>) =>
  (value: string | null | undefined): string => {
    if (value === undefined || value === null || value === '') return '—';
    const v = value;
    return Object.hasOwn(table, v) ? table[v] : v;
  };

export const transferStatusText = word(TRANSFER_STATUS);
export const transferKindText = word(TRANSFER_KIND);
export const transactionTypeText = word(TRANSACTION_TYPE);
export const assetSchemaText = word(ASSET_SCHEMA);
