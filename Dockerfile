# opsgate for people who build with docker or buildah and push to a registry. The same image, built
# with no registry at all (Debian packages + Node 24 from npm + umoci), comes from `npm run image`
# (scripts/build-image.sh); both run `opsgate serve` as user 10001 on a read-only root filesystem.
FROM node:24-bookworm-slim AS build
WORKDIR /opt/opsgate
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN bash scripts/build-web.sh --force && npm prune --omit=dev \
 && find docs -mindepth 1 -maxdepth 1 ! -name runbooks -exec rm -rf {} + \
 && rm -rf test bench eval notes .ci deploy node_modules/ssh2/lib/protocol/crypto/build

FROM node:24-bookworm-slim
COPY --from=build /opt/opsgate /opt/opsgate
RUN ln -s /opt/opsgate/bin/opsgate /usr/local/bin/opsgate \
 && groupadd --gid 10001 opsgate && useradd --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin opsgate \
 && mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
USER 10001:10001
WORKDIR /data
ENV OPSGATE_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/opsgate"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data"]
