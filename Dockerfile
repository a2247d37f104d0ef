# check=skip=SecretsUsedInArgOrEnv
# (Docker's build check takes every TOKEN_SIM_* variable for a secret by its "TOKEN_" prefix; none of the
# variables below holds one: pass the admin token at run time, never here.)
# token-sim's container image (contract 4.3, decision 0054): the CLI on 0.0.0.0:8080 as a non-root user,
# configured by TOKEN_SIM_* variables, its --state-file in the volume /data.
#   docker build -t token-sim .          (or podman build --format docker: HEALTHCHECK is a Docker-format field)
#   docker run -p 8080:8080 -v token-sim-data:/data token-sim
# How to run and configure it: docs/container.md. `npm run test:image` builds and checks it with podman.

# Any image with Node 20 or later, npm (build stage), groupadd and useradd (runtime stage).
ARG BASE_IMAGE=node:20-slim

# Build: every dependency, the build (dist/), then only the production dependencies left in node_modules.
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No dependency has an install script; the build runs below, once the sources are there (a change to them
# then reuses this layer).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/ scripts/
COPY scenarios/ scenarios/
COPY src/ src/
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && find dist -name '*.map' -delete

# Runtime: what the CLI reads when it runs (the package's files, without sources, tests or docs).
FROM ${BASE_IMAGE}
RUN groupadd --system --gid 10001 token-sim \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin token-sim \
 && mkdir -p /data \
 && chown 10001:10001 /data \
 && chmod 0700 /data
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
COPY bin/ bin/
COPY fixtures/ fixtures/
COPY scenarios/ scenarios/
COPY LICENSE ./

# Every option is a TOKEN_SIM_* variable (docs/cli.md); `docker run -e` overrides these, and flags after the
# image name win over both. The drain fits in the 10 s a `docker stop` waits before SIGKILL, so the last
# save of the state file happens; raise both together (docs/container.md).
ENV NODE_ENV=production \
    TOKEN_SIM_HOST=0.0.0.0 \
    TOKEN_SIM_PORT=8080 \
    TOKEN_SIM_STATE_FILE=/data/state.json \
    TOKEN_SIM_DRAIN_TIMEOUT=PT8S

USER 10001:10001
# The state file, its key (state.json.key, mode 0600) and any other file the CLI writes under its working
# directory live in the volume.
WORKDIR /data
VOLUME /data
EXPOSE 8080
# node as PID 1 has no default signal handlers: the CLI installs its own, drains, saves and exits 0.
STOPSIGNAL SIGTERM
# No curl in slim images: node itself asks /_sim/health (open even with an admin token; 503 while a Redis
# store is unreachable), over HTTPS when TOKEN_SIM_TLS or TOKEN_SIM_TLS_CERT says so (docs/https.md). A liveness
# check from inside the container: it does not verify the certificate, which a client must.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "const e = process.env, tls = /^(true|1)$/i.test(e.TOKEN_SIM_TLS || '') || !!e.TOKEN_SIM_TLS_CERT; require(tls ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: e.TOKEN_SIM_PORT || 8080, path: '/_sim/health', rejectUnauthorized: false }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/token-sim.js"]
