#!/usr/bin/env bash
# `npm run image`: builds opsgate's container image with no image registry and no container engine:
# a Debian bookworm root filesystem from Debian's packages (mmdebstrap, essential packages only), Node.js 24 from the npm
# registry (the binary scripts/ensure-node.sh fetched), the app with its production dependencies
# only, assembled into an OCI image layout with umoci. Prints its size and digest.
#
# Output (OPSGATE_IMAGE_DIR, default .cache/image): oci/ (the OCI layout, tag = the package version)
# and opsgate-image.oci.tar (the same as one archive: `podman load -i`, `skopeo copy oci-archive:…`).
# The Dockerfile says the same for people who build with docker or buildah and push to a registry.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OPSGATE_IMAGE_DIR:-$root/.cache/image}"
suite="${OPSGATE_IMAGE_SUITE:-bookworm}"
tag="$(node -p 'require("./package.json").version')"

missing=()
for tool in mmdebstrap umoci; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "opsgate image: installing ${missing[*]} (Debian packages) ..." >&2
    apt-get install -y -q "${missing[@]}" >/dev/null
  else
    echo "opsgate image: needs ${missing[*]} (Debian: apt-get install ${missing[*]}); run as root to install them" >&2
    exit 1
  fi
fi

node_bin="$(scripts/ensure-node.sh)"
bash scripts/build-web.sh
work="$(mktemp -d "${TMPDIR:-/tmp}/opsgate-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "opsgate image: staging the app (git HEAD, production dependencies) ..." >&2
app="$work/app/opt/opsgate"
mkdir -p "$app" "$work/app/usr/local/bin" "$work/app/data"
git archive HEAD | tar -x -C "$app"
cp -r src/web/dist "$app/src/web/dist"
# ssh2's optional native cipher is skipped (see scripts/run.sh); nothing else needs a build step.
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
# docs/runbooks stays: the troubleshoot agent and the server's runbook pages read it at run time.
find "$app/docs" -mindepth 1 -maxdepth 1 ! -name runbooks -exec rm -rf {} +
rm -rf "$app/test" "$app/bench" "$app/eval" "$app/notes" "$app/.ci" "$app/deploy"
# What a running server never reads: type declarations, source maps, docs, and the grammar's C
# sources and native prebuilds (the validator loads tree-sitter-bash.wasm only).
find "$app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -delete
rm -rf "$app/node_modules/tree-sitter-bash/src" "$app/node_modules/tree-sitter-bash/prebuilds"
cp "$node_bin" "$work/app/usr/local/bin/node"
# The npm build of Node carries its debug symbols (18 MB); a server has no use for them.
if command -v strip >/dev/null 2>&1; then strip "$work/app/usr/local/bin/node"; fi
ln -s /opt/opsgate/bin/opsgate "$work/app/usr/local/bin/opsgate"

# Node carries its own CA certificates, so Debian's (and the perl they pull in) stay out.
echo "opsgate image: Debian $suite root filesystem (mmdebstrap, essential packages + libstdc++6) ..." >&2
mmdebstrap --quiet --variant=essential --include=libstdc++6 \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook="copy-in $work/app/opt /" \
  --customize-hook="copy-in $work/app/usr/local/bin /usr/local" \
  --customize-hook='echo "opsgate:x:10001:10001:opsgate:/data:/usr/sbin/nologin" >> "$1/etc/passwd"' \
  --customize-hook='echo "opsgate:x:10001:" >> "$1/etc/group"' \
  --customize-hook='mkdir -p "$1/data" && chown 10001:10001 "$1/data" && chmod 0700 "$1/data"' \
  --customize-hook='rm -rf "$1/var/cache/apt" "$1/var/lib/apt/lists" "$1/var/log"/*' \
  "$suite" "$work/rootfs" >&2

echo "opsgate image: OCI layout (umoci) ..." >&2
rm -rf "$out" && mkdir -p "$out"
umoci init --layout "$out/oci"
umoci new --image "$out/oci:$tag"
umoci unpack --image "$out/oci:$tag" "$work/bundle" >/dev/null
cp -a "$work/rootfs/." "$work/bundle/rootfs/"
umoci repack --image "$out/oci:$tag" "$work/bundle"
umoci config --image "$out/oci:$tag" \
  --config.user 10001:10001 --config.workingdir /data \
  --config.entrypoint /usr/local/bin/opsgate \
  --config.cmd serve --config.cmd --host --config.cmd 0.0.0.0 --config.cmd --port --config.cmd 8080 --config.cmd --data-dir --config.cmd /data \
  --config.env OPSGATE_DATA_DIR=/data --config.env PATH=/usr/local/bin:/usr/bin:/bin \
  --config.exposedports 8080/tcp --config.volume /data \
  --config.label org.opencontainers.image.title=opsgate --config.label "org.opencontainers.image.version=$tag"
umoci gc --layout "$out/oci"
tar -C "$out/oci" -cf "$out/opsgate-image.oci.tar" .

digest="$(node -e 'const i=require(process.argv[1]);const m=i.manifests.find(x=>x.annotations?.["org.opencontainers.image.ref.name"]===process.argv[2]);console.log(m.digest)' "$out/oci/index.json" "$tag")"
compressed="$(du -sb "$out/oci/blobs" | cut -f1)"
unpacked="$(du -sb "$work/bundle/rootfs" | cut -f1)"
mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1000000 }'; }
echo "opsgate image $tag"
echo "  digest:   $digest"
echo "  size:     $(mb "$compressed") compressed (the blobs a registry stores), $(mb "$unpacked") unpacked"
echo "  layout:   $out/oci (tag $tag)"
echo "  archive:  $out/opsgate-image.oci.tar"
