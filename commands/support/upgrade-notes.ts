/**
 * What an upgrade changes for the operator, in words, for `node upgrade`'s confirmation: the versions
 * and node API generations from and to, that the node comes back locked, that older backups cannot be
 * restored on it, and which commands take other inputs on the newer generation.
 */
import type { Field } from '../../src/vocabulary/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { imageOfNode, shapeOfCommit, type ApiShape } from '../../src/node-api/index.js';

/** The commands whose inputs differ between f379330 and 6887cbf (src/node-api/generations.ts has the endpoints and RLN's commits). */
export const INPUTS_CHANGED: readonly string[] = [
  '`node unlock` asks for an indexer URL and a chain-sync mode (TransactionSync, or BlockSync with bitcoind), and takes no proxy',
  '`invoice rgb` takes an expiry and transport endpoints',
  '`asset transfers` lists every asset at once, or one transfer by txid',
  '`asset refresh` can refresh one asset',
  '`node sync` takes a strategy (FastSync, FullSync or FullScan)',
  '`wallet unspents` can list settled allocations only',
];

/** The generation a node's image speaks, when its RLN commit is one the bot knows. */
export function generationOf(node: HostedNode): ApiShape | undefined {
  return shapeOfCommit(imageOfNode(node));
}

/** The confirmation's fields for an upgrade from `current` to `version` (the service's image versions). */
export function upgradeNotes(node: HostedNode, current: string | undefined, version: string, offerBackup: boolean): Field[] {
  const from = generationOf(node);
  const crosses = from !== '6887cbf';
  const api =
    from === '6887cbf'
      ? 'node API 6887cbf before and after: the newest the bot knows'
      : `node API ${from ?? 'unknown'} → 6887cbf or newer; learnt again when it is back`;
  const fields: Field[] = [
    { label: 'Image', value: `${current ?? 'unknown'} → ${version} (${api})` },
    {
      label: 'Comes back locked',
      value: `you will be asked to unlock it: the channels watching ${node.name} get an Unlock button when it is back.`,
    },
  ];
  if (crosses) {
    fields.push(
      {
        label: 'Backups',
        value: `backups taken before this upgrade cannot be restored on it (the newer image cannot read their wallet files): take a new backup after unlocking (\`node backup ${node.name}\`).`,
      },
      { label: 'Inputs that change', value: `${INPUTS_CHANGED.join('; ')}.` },
    );
  }
  if (offerBackup) {
    fields.push({
      label: 'Backup first',
      value: [
        { bold: 'Back up, then upgrade' },
        " writes a backup to the node's own disk first, for going back to this image: a private dialog asks the node password, and the node is locked for the backup.",
      ],
    });
  }
  return fields;
}
