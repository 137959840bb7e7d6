/** An RLN-shaped API error: the emulator answers `{ error, code, name }` with RLN's status codes. */
export class RlnError extends Error {
  constructor(
    readonly status: number,
    readonly rlnName: string,
    message: string,
  ) {
    super(message);
    this.name = 'RlnError';
  }

  toBody(): { error: string; code: number; name: string } {
    return { error: this.message, code: this.status, name: this.rlnName };
  }
}

/** 400: the request is malformed or a value is invalid. */
export const badRequest = (name: string, message: string) => new RlnError(400, name, message);
/** 401: the password is wrong. */
export const wrongPassword = () => new RlnError(401, 'WrongPassword', 'The provided password is incorrect');
/** 403: the node is not in a state that allows the call, or lacks funds/assets. */
export const forbidden = (name: string, message: string) => new RlnError(403, name, message);
/** 404: the object (channel, payment, swap, media...) is unknown. */
export const notFound = (name: string, message: string) => new RlnError(404, name, message);
/** 500: the operation failed inside the node. */
export const failed = (name: string, message: string) => new RlnError(500, name, message);

export const lockedNode = () => forbidden('LockedNode', 'Node is locked (hint: call unlock)');
export const notInitialized = () => forbidden('NotInitialized', 'Wallet has not been initialized (hint: call init)');
export const unlockedNode = () => forbidden('UnlockedNode', 'Node is unlocked (hint: call lock)');
export const insufficientFunds = (needed: number) =>
  forbidden('InsufficientFunds', `Not enough funds, call getaddress and send ${needed} satoshis`);
export const insufficientAssets = (available: number) => forbidden('InsufficientAssets', `Not enough assets, available: ${available}`);
export const noAvailableUtxos = () => forbidden('NoAvailableUtxos', 'No uncolored UTXOs are available (hint: call createutxos)');
export const unknownContractId = () => forbidden('UnknownContractId', 'Unknown RGB contract ID');
