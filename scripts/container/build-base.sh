#!/bin/sh
# Makes a local Node.js base image for the Dockerfile where no container registry is reachable
# (docs/operations.md, "Container"): a minimal Debian by debootstrap, plus the official Node.js
# build and npm laid out in /usr/local as the official node:*-slim images have them. Elsewhere, the
# Dockerfile's default BASE_IMAGE (node:22-trixie-slim) is the same thing, pulled.
#
#   sh scripts/container/build-base.sh [suite] [mirror]        -> localhost/node-base:22-trixie
#   podman build --format docker --build-arg BASE_IMAGE=localhost/node-base:22-trixie -t local-inference-server .
#
# Needs root, debootstrap, podman, and node with npm on the host (for `npm pack`, which only
# downloads: nothing of the host's Node goes into the image). Node.js comes from the npm registry's
# node-linux-<arch> package, the nodejs.org build with its headers (as .ci/run takes it); npm is the
# host's npm version (NPM_VERSION to choose another), from the registry's npm package.
set -eu
suite="${1:-trixie}"
mirror="${2:-http://deb.debian.org/debian}"
# The Node floor's build (.ci/run's NODE_FLOOR_VERSION; test/deploy checks they agree).
NODE_VERSION="${NODE_VERSION:-22.23.5}"
NPM_VERSION="${NPM_VERSION:-$(npm --version)}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2 && exit 1 ;;
esac
image="localhost/node-base:${NODE_VERSION%%.*}-$suite"
work="$(mktemp -d "${TMPDIR:-/tmp}/node-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

# name@version into $work; its sha512 must be the registry's (npm pack checks it too; this says so).
pack() {
  file="$work/$(cd "$work" && npm pack --silent "$1")"
  expected="$(cd "$work" && npm view "$1" dist.integrity)"
  actual="sha512-$(node -e "process.stdout.write(require('node:crypto').createHash('sha512').update(require('node:fs').readFileSync(process.argv[1])).digest('base64'))" "$file")"
  [ "$actual" = "$expected" ] || { echo "$1: integrity $actual, the registry says $expected" >&2 && exit 1; }
  echo "$file"
}
node_tgz="$(pack "node-linux-$arch@$NODE_VERSION")"
npm_tgz="$(pack "npm@$NPM_VERSION")"

debootstrap --variant=minbase "$suite" "$root" "$mirror"
# Slimmed as the official debian:*-slim images are (debuerreotype): no documentation, manual pages
# or translations, now or from later installs, and no apt lists or downloaded packages kept.
cat > "$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF2'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF2
cat > "$root/etc/apt/apt.conf.d/docker-clean" <<'EOF2'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF2
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root/usr/share/man/"* "$root/usr/share/groff/"* "$root/usr/share/info/"* \
  "$root/usr/share/lintian/"* "$root/usr/share/linda/"* "$root/usr/share/locale/"* \
  "$root/var/lib/apt/lists/"* "$root/var/cache/apt/archives/"*.deb "$root/var/cache/apt/"*.bin

# Node.js as the official image unpacks its nodejs.org tarball into /usr/local: bin/node,
# include/node (node-gyp's headers: the Dockerfile's npm_config_nodedir), share/{doc,man}.
tar -xzf "$node_tgz" -C "$root/usr/local" --strip-components=1 --no-same-owner \
  package/bin package/include package/share
# npm as nodejs.org's tarball carries it (its dependencies are bundled in the package).
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$npm_tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
chmod 0755 "$root/usr/local/lib/node_modules/npm/bin/npm-cli.js" "$root/usr/local/lib/node_modules/npm/bin/npx-cli.js"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# The official image's unprivileged user.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Runs in the rootfs (its libraries, not the host's): the node package is this machine's architecture.
[ "$(chroot "$root" /usr/local/bin/node --version)" = "v$NODE_VERSION" ]
[ "$(chroot "$root" env PATH=/usr/local/bin:/usr/bin:/bin npm --version)" = "$NPM_VERSION" ]

tar -C "$root" -c . | podman import \
  --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  - "$image"
echo "$image"
