#!/bin/sh
# Makes a local Debian base image for the Dockerfile where no container registry is reachable
# (docs/operations.md, "Container"): debootstrap a minimal Debian into a folder and import it.
# Elsewhere, the Dockerfile's default BASE_IMAGE (debian:trixie-slim) is the same thing, pulled.
#
#   sh scripts/container/build-base.sh [suite] [mirror]
#   podman build --build-arg BASE_IMAGE=localhost/debian-base:trixie -t local-inference-server .
#
# Needs root, debootstrap and podman (Debian: apt-get install debootstrap podman). The suite must
# carry Node.js >= 20 as its `nodejs` package: trixie has 20.19, bookworm only 18.
set -eu
suite="${1:-trixie}"
mirror="${2:-http://deb.debian.org/debian}"
image="localhost/debian-base:$suite"
work="$(mktemp -d "${TMPDIR:-/tmp}/debian-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT

debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror"
# As the official slim images: no apt lists or caches in the layer, and apt points at the mirror.
rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin
tar -C "$work/rootfs" -c . | podman import \
  --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  - "$image"
echo "$image"
