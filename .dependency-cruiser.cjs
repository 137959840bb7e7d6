/**
 * The import rules of docs/ARCHITECTURE.md ("Layers"), run by `npm test` (`npm run lint:imports`).
 *
 * A room is a folder under src/ or commands/ (src/chat/slack and src/emulator/node-api are rooms
 * of their own). Another room is reached only through its index.ts. The src/*.ts leaves (config,
 * log, metrics) may be imported by all and import nothing but the vocabulary.
 *
 * The layers, from the bottom; a room imports only from its own layer or the layers below:
 */
const LAYERS = [
  { name: 'the vocabulary', rooms: ['src/vocabulary'] },
  { name: 'the store and the clients', rooms: ['src/store', 'src/hosting', 'src/node-api', 'src/http'] },
  { name: 'access and the features', rooms: ['src/access', 'src/webhooks', 'src/notify', 'src/reports', 'src/activity'] },
  { name: 'the engine', rooms: ['src/engine'] },
  { name: 'commands and chat', rooms: ['commands', 'src/chat'] },
  { name: 'the app', rooms: ['src/app', 'src/demo', 'src/emulator', 'src/doctor', 'src/cli'] },
];

const folders = (rooms) => `^(${rooms.join('|')})/`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-imports-no-higher-layer`,
  severity: 'error',
  comment: `${layer.name} may not import a higher layer (${LAYERS.slice(i + 1)
    .map((l) => l.name)
    .join(', ')}).`,
  from: { path: folders(layer.rooms) },
  to: { path: folders(LAYERS.slice(i + 1).flatMap((l) => l.rooms)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'rooms-only-through-index',
      severity: 'error',
      comment: 'Reach another room only through what it exports from its index.ts (docs/ARCHITECTURE.md, "Conventions").',
      from: { path: '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/' },
      to: {
        path: '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/',
        pathNot: ['^$1/', '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/index\\.ts$'],
      },
    },
    {
      name: 'leaves-stay-leaves',
      severity: 'error',
      comment:
        'src/config.ts, src/log.ts, src/metrics.ts and src/redact.ts (with its word list src/bip39-words.ts) are leaves every room may import: they import no room but the vocabulary.',
      from: { path: '^src/(config|log|metrics|redact|bip39-words)\\.ts$' },
      to: { path: '^(src/[^/]+/|commands/)', pathNot: '^src/vocabulary/' },
    },
    {
      name: 'vocabulary-is-a-leaf',
      severity: 'error',
      comment: 'src/vocabulary imports nothing else in the project: every layer speaks it.',
      from: { path: '^src/vocabulary/' },
      to: { path: '^(src/|commands/)', pathNot: '^src/vocabulary/' },
    },
    ...layerRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle at all, type-only imports included: rooms depend on each other in one direction, and so do the files of a room. ' +
        'A plain rule (no viaOnly), so it finds any cycle, and above all one that crosses two folders.',
      from: { path: '^(src|commands)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
