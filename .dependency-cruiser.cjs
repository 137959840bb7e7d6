/**
 * The import rules of DESIGN.md, run by `npm test` (`npm run lint:imports`).
 * A room is a folder under src/ or commands/ (src/chat/slack and src/emulator/node-api are
 * rooms of their own). Another room is reached only through its index.ts; the src/*.ts
 * leaves (config, log, metrics) may be imported by all; src/config.ts imports no room.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'rooms-only-through-index',
      severity: 'error',
      comment: 'Reach another room only through what it exports from its index.ts (DESIGN.md, Layout).',
      from: { path: '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/' },
      to: {
        path: '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/',
        pathNot: ['^$1/', '^(src/(?:chat/[^/]+|emulator/node-api|[^/]+)|commands)/index\\.ts$'],
      },
    },
    {
      name: 'leaves-stay-leaves',
      severity: 'error',
      comment: 'src/config.ts, src/log.ts and src/metrics.ts are leaves every room may import: they import no room.',
      from: { path: '^src/(config|log|metrics)\\.ts$' },
      to: { path: '^(src/[^/]+/|commands/)' },
    },
    {
      name: 'no-circular-rooms',
      severity: 'error',
      comment: 'Rooms depend on each other in one direction.',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { path: '^src/[^/]+/index\\.ts$' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
