# The service's image (docs/deployment.md#the-container-image): the compiled server, the production
# dependencies and nothing else, run as its own user. Built and run by CI with Podman (test/container/).
# Build with Docker (`docker build -t slowdns .`) or Podman (`podman build --format docker -t slowdns .`:
# Podman's default OCI format has no HEALTHCHECK and drops it).

# ---- build: every dependency, the compiled server, then the production dependencies alone ----
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm's cache survives between builds (a cache mount, not a layer). A registry behind a TLS-inspecting
# proxy: pass its CA as the secret npm_ca (`--secret id=npm_ca,src=/path/ca.pem`); it is mounted for this
# step only and never written to a layer.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    --mount=type=secret,id=npm_ca \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- run ----
FROM node:22-bookworm-slim
# Its own user and group (uid and gid 10001, no shell, no home) and the embedded database's folder.
RUN groupadd --gid 10001 slowdns \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin slowdns \
 && mkdir /data && chown 10001:10001 /data
WORKDIR /app
# Owned by root: the service cannot change its own code.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
USER 10001:10001
VOLUME /data
EXPOSE 8080
# SIGTERM drains (at most 10 s, then exit 1): give `docker stop`/`podman stop` a timeout of 15 s or more.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/api/v2/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=16", "dist/src/main.js"]
