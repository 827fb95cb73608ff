# The inference server as a CPU container image (docs/operations.md, "Container").
#
#   docker build -t local-inference-server:0.1.0 .
#   docker volume create inference-models; docker volume create inference-data
#   docker run --rm -v inference-models:/models local-inference-server:0.1.0 download-models --starter
#   docker run -d -p 127.0.0.1:3000:3000 -v inference-models:/models -v inference-data:/data \
#     local-inference-server:0.1.0
#   docker exec <container> entrypoint keys create --name me
#
# The base is the official Node.js image of the Node floor (package.json engines: node and npm in
# /usr/local, on Debian trixie); where no registry is reachable, scripts/container/build-base.sh
# makes the same with debootstrap and the nodejs.org build from the npm registry:
#   podman build --format docker --build-arg BASE_IMAGE=localhost/node-base:22-trixie -t … .
ARG BASE_IMAGE=node:22-trixie-slim

# ---- build: every dependency, the TypeScript build, then the dev dependencies pruned away ----
FROM ${BASE_IMAGE} AS build
# python3, make and g++: node-gyp compiles better-sqlite3 where its prebuilt binary cannot be
# downloaded (no GitHub access, or a Node build it has none for), against the headers the base's
# Node carries in /usr/local/include/node, so node-gyp downloads none.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates python3 make g++ \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
# Where HTTPS to the npm registry goes through an intercepting proxy, its CA for `npm ci`, mounted
# for the build only: --build-arg NODE_EXTRA_CA_CERTS=/ca.crt -v /path/to/ca.crt:/ca.crt:ro (podman).
ARG NODE_EXTRA_CA_CERTS=
# The lock file first, so source changes do not re-install (.npmrc: onnxruntime-node's install
# script downloads nothing; its CPU binaries are in the npm package).
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund --no-progress
COPY tsconfig.json tsconfig.client.json ./
COPY src src
COPY scripts scripts
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund --no-progress \
 # onnxruntime-node carries binaries for every OS and CPU (~240 MB); keep this machine's.
 && arch="$(node -p process.arch)" \
 && for dir in node_modules/onnxruntime-node/bin/napi-v*/*/*; do \
      case "$dir" in */linux/"$arch") ;; *) rm -rf "$dir" ;; esac; \
    done \
 && test -e node_modules/onnxruntime-node/bin/napi-v6/linux/"$arch"/onnxruntime_binding.node \
 # Left over from compiling better-sqlite3 (its SQLite sources and objects), and source maps.
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/build/Release/obj* \
      node_modules/better-sqlite3/build/Release/test_extension.node node_modules/better-sqlite3/build/Release/*.a \
 && find node_modules -name '*.map' -type f -delete

# ---- run: the base's Node, jemalloc, the built server and its production dependencies ----
FROM ${BASE_IMAGE}
# libjemalloc2: unloaded models' memory goes back to the system (scripts/server-allocator.sh);
# ca-certificates: download-models over HTTPS; tar: download-models --from a tarball.
# APT_PACKAGES adds more, e.g. "apertium apertium-eng-spa" for Apertium translation.
ARG APT_PACKAGES=""
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libjemalloc2 ca-certificates tar $APT_PACKAGES \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 inference \
 && useradd --system --uid 10001 --gid inference --home-dir /data --no-create-home --shell /usr/sbin/nologin inference \
 && mkdir -p /models /data \
 && chown inference:inference /models /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# The manifest and catalogue ship with the code; the weights live on the /models volume.
COPY models/models.json models/models.json
COPY models/catalog models/catalog
COPY scripts/server-allocator.sh scripts/server-allocator.sh
COPY scripts/container/entrypoint.sh /usr/local/bin/entrypoint
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MODELS_DIR=/models \
    MODELS_MANIFEST=/app/models/models.json \
    DATABASE_URL=sqlite:/data/app.db \
    HOME=/data
VOLUME ["/models", "/data"]
EXPOSE 3000
USER inference:inference
# No curl in the image: Node's fetch. Start period: migrations and PRELOAD_MODELS on a cold disk.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["entrypoint"]
CMD ["serve"]
