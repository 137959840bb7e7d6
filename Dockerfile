# syntax=docker/dockerfile:1
# Build stage: install from the lockfile (with the toolchain better-sqlite3 may need),
# compile TypeScript, then drop the dev dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY commands ./commands
# sodium-native ships prebuilt addons for every platform (18 MB): only this one's is kept.
RUN npm run build && npm prune --omit=dev \
 && node -e "const fs=require('fs'),p='node_modules/sodium-native/prebuilds';for(const d of fs.readdirSync(p))if(d!==process.platform+'-'+process.arch)fs.rmSync(p+'/'+d,{recursive:true})"

# Run stage: a small Node image, a non-root user, the SQLite file on a volume.
# MALLOC_ARENA_MAX=2: glibc's malloc keeps up to 8 arenas per core, one per thread that
# allocates (libuv's pool, V8's helpers, the checkpoint worker); two hold what the bot needs
# and keep resident memory down (measured, issue 18: 3-8 MiB less idle).
# MALLOC_TRIM_THRESHOLD_ at 128 KiB: glibc raises its trim threshold as large blocks come
# and go (up to 64 MiB), and free memory below it stays resident. Fixed, the memory a burst
# of webhooks used goes back: 30 s after 20,000 events, +15-17% over idle against +18-21%
# (docs/benchmarks.md, 2026-11-29), with no change in throughput beyond the noise.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATABASE_PATH=/data/rln-chatops.db \
    PORT=3000 \
    HOST=0.0.0.0 \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json manifest.yml ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains in-flight work and exits 0 within 10 s.
STOPSIGNAL SIGTERM
# --max-semi-space-size=4: V8's young generation at most 2 x 4 MiB instead of 2 x 16 MiB.
# Start-up grows it to its maximum and an idle process never shrinks it, so it was ~25 MiB of
# the idle bot's resident memory (issue 18); the cost is more, smaller scavenges under load.
# --heap-growing-percent=40: after each full collection V8 lets the old generation grow by 40%
# of what survived before the next, instead of up to 4 x (its default on a host with a few GiB,
# whatever the container's limit). Polling creates much short-lived garbage that outlives a
# scavenge (an answer is held while the node's other calls are awaited) and lands in the old
# generation: measured (issue 28, 500 nodes polled with every kind on, 30 s interval), the old
# generation grew to ~150 MiB for ~40 MiB alive, RSS +136 MiB over idle; with this flag +47 MiB,
# for the same CPU. No cap: a report over many nodes still gets the heap it needs.
# The benchmarks read these flags from here (test/bench/processes.ts).
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=40", "dist/src/cli/main.js", "start"]
