# syntax=docker/dockerfile:1
# Lanterna's gateway image, and the demo presenter that compose.yaml runs.
#   docker build -t lanterna-gateway .                       # the gateway (last stage)
#   docker build --target presenter -t lanterna-presenter .  # the compose demo's presenter
# Without a Docker engine: deploy/build-image.sh (buildah, chroot isolation).
#
# Stages: build (the same scripts CI runs: setup, tsc, the wasm client from
# Debian's pinned source packages, the web bundle) → presenter (Xvfb + FreeRDP's
# shadow server, a demo) → gateway (node, the gateway, the pages; nothing else).

# A Debian 12 image; deploy/base-image.sh makes one with debootstrap where no
# registry is reachable.
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV DEBIAN_FRONTEND=noninteractive \
    LANTERNA_CACHE=/var/cache/lanterna \
    PUPPETEER_SKIP_DOWNLOAD=1 \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    npm_config_update_notifier=false
WORKDIR /src

# Debian packages (toolchains incl. emscripten) and the PyPI venv, as CI
# installs them; a layer of its own until the package lists change.
COPY scripts/setup.sh scripts/apt-packages.txt scripts/python-requirements.txt scripts/
COPY deploy/build-ca.sh deploy/
RUN --mount=type=secret,id=build-ca \
    . deploy/build-ca.sh && bash scripts/setup.sh system

# Node.js 20 and npm 11: Debian 12's nodejs is 18 (the gateway needs 20) and
# NodeSource is not everywhere reachable, so both come from the npm registry,
# pinned and checked against the sha512 in deploy/node/package-lock.json.
# Debian's npm only bootstraps them. The apt lists stay: wasm/build.sh fetches
# its sources with apt-get source. (build-ca: see deploy/build-ca.sh.)
COPY deploy/node/package.json deploy/node/package-lock.json /opt/node/
# hadolint ignore=DL3008,DL3009
RUN --mount=type=secret,id=build-ca \
    . deploy/build-ca.sh \
 && apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends npm \
 && npm ci --prefix /opt/node --ignore-scripts --no-audit --no-fund --loglevel=error \
 && install -D -m 0755 /opt/node/node_modules/node-linux-*/bin/node /opt/node-runtime/node \
 && mkdir -p /opt/node/bin \
 && ln -s /opt/node-runtime/node /opt/node/bin/node \
 && ln -s ../node_modules/npm/bin/npm-cli.js /opt/node/bin/npm \
 && ln -s ../node_modules/npm/bin/npx-cli.js /opt/node/bin/npx \
 && /opt/node/bin/node --version && PATH=/opt/node/bin:$PATH npm --version
ENV PATH=/opt/node/bin:$PATH

# The wasm client: OpenSSL and FreeRDP from Debian's source packages (pinned
# versions, sha256-checked), about 8 min cold on 2 cores. wasm/build.sh keeps
# its three cache levels in a cache mount, keyed by their inputs: a change of
# our glue relinks (about a minute), any other change of wasm/ costs seconds.
COPY wasm/ wasm/
RUN --mount=type=cache,id=lanterna-wasm,target=/var/cache/lanterna/wasm \
    bash wasm/build.sh

# Go for the native data plane (relay.engine "native"): Debian's from
# bookworm-backports, which fetches the toolchain gateway/dataplane/go.mod
# names from the Go module proxy (GOTOOLCHAIN=auto), as it does the modules.
# hadolint ignore=DL3008
RUN --mount=type=secret,id=build-ca \
    . deploy/build-ca.sh \
 && apt-get install -y -qq --no-install-recommends -t bookworm-backports golang-1.23-go
ENV PATH=$PATH:/usr/lib/go-1.23/bin \
    GOTOOLCHAIN=auto

# npm ci, tsc -b, the wasm client (warm: the same cache) and the web bundle:
# scripts/setup.sh and scripts/build.sh, as CI runs them. Then the runtime tree.
COPY . .
RUN --mount=type=cache,id=lanterna-wasm,target=/var/cache/lanterna/wasm \
    --mount=type=cache,id=lanterna-npm,target=/root/.npm \
    --mount=type=cache,id=lanterna-go,target=/root/go/pkg/mod \
    --mount=type=secret,id=build-ca \
    . deploy/build-ca.sh \
 && bash scripts/setup.sh \
 && bash scripts/build.sh product \
 && bash deploy/stage-runtime.sh /app


# A demo presenter for compose.yaml: a virtual screen with a terminal, shared
# by FreeRDP 3's shadow server (bookworm-backports) on 3389, TLS, no login.
FROM ${BASE_IMAGE} AS presenter
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY deploy/presenter/backports.sources /etc/apt/sources.list.d/
# Debian stable's mirrors carry only the current version of a package: the
# suite is the pin (version pins would break on every security update).
# hadolint ignore=DL3008
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      xvfb x11-utils x11-xserver-utils xterm fonts-dejavu-core procps \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -t bookworm-backports freerdp3-shadow-x11 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10002 --shell /usr/sbin/nologin presenter \
 && install -d -m 1777 /tmp/.X11-unix
COPY deploy/presenter/presenter.sh /usr/local/bin/lanterna-presenter
USER 10002:10002
WORKDIR /home/presenter
EXPOSE 3389/tcp
ENTRYPOINT ["/usr/local/bin/lanterna-presenter"]


# The gateway: Node, the compiled gateway and protocol package, the native
# data plane (a static binary), the display page with the wasm client,
# production node_modules. Runs as an unprivileged
# user; everything it writes goes to the state volume.
FROM ${BASE_IMAGE} AS gateway
COPY --from=build /opt/node-runtime/node /usr/local/bin/node
RUN groupadd --system --gid 10001 lanterna \
 && useradd --system --uid 10001 --gid lanterna --home-dir /var/lib/lanterna --no-create-home \
      --shell /usr/sbin/nologin lanterna \
 && install -d -o lanterna -g lanterna -m 0700 /var/lib/lanterna
COPY --from=build /app /app
# Defaults for a container; every one can be overridden with -e, and the rest
# of the configuration comes from a JSON file (LANTERNA_CONFIG, see README.md).
# LANTERNA_WORKERS=0 starts one worker per CPU the container may use (its
# cpuset); with a CPU quota (--cpus) set it to that number.
ENV NODE_ENV=production \
    LANTERNA_LISTEN_HOST=0.0.0.0 \
    LANTERNA_LISTEN_PORT=8443 \
    LANTERNA_STATE_DIR=/var/lib/lanterna \
    LANTERNA_WORKERS=0
# Certificate and key (when generated), admin token, session secret, pinned
# server certificates: keep them across upgrades.
VOLUME ["/var/lib/lanterna"]
# 8443/tcp: HTTPS + WSS for displays, pages and the admin API.
# 3702/udp: WS-Discovery when turned on (LANTERNA_WSD=true); multicast needs --network host.
EXPOSE 8443/tcp 3702/udp
USER 10001:10001
WORKDIR /app
# SIGTERM drains: sessions may run up to timeouts.drainMs (30 s) before they
# are ended, so give `docker stop` more than that (--time 40).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/app/deploy/healthcheck.mjs"]
ENTRYPOINT ["node", "/app/gateway/dist/cli.js"]
