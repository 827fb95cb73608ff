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
# Slimmed as the official debian:*-slim images are (debuerreotype): no documentation, manual pages
# or translations, now or from later installs, and no apt lists or downloaded packages kept.
root="$work/rootfs"
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
tar -C "$work/rootfs" -c . | podman import \
  --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  - "$image"
echo "$image"
