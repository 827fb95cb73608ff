#!/bin/sh
# Runs deploy/local-inference.service under a real systemd, in a privileged Podman container made
# from the server image (its build as /opt/local-inference-server, whisper-tiny.en installed), and
# checks what docs/operations.md ("What was verified here", systemd) lists. Removes its container
# and image at the end. Not part of .ci/run (it needs a built image and a privileged container).
#
#   sh scripts/container/systemd-check.sh [image]    (default localhost/local-inference-server:0.1.0)
#
# MODELS: a folder of installed models with whisper-tiny.en (default models/).
set -eu
image="${1:-localhost/local-inference-server:0.1.0}"
models="$(cd "${MODELS:-models}" && pwd)"
here="$(cd "$(dirname "$0")/../.." && pwd)"
name="lis-systemd-$$"
work="$(mktemp -d "${TMPDIR:-/tmp}/lis-systemd.XXXXXX")"

fail() {
  echo "FAIL: $*" >&2
  podman exec "$name" journalctl -u local-inference --no-pager -n 20 -o cat >&2 2>/dev/null || true
  exit 1
}
cleanup() {
  podman rm -f -v "$name" >/dev/null 2>&1 || true
  podman rmi -f "localhost/$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

cp "$here/deploy/local-inference.service" "$here/scripts/start.sh" "$work/"
cp -r "$models/whisper-tiny.en" "$work/"
cat >"$work/Containerfile" <<EOF
FROM $image
USER root
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd systemd-sysv curl \\
 && apt-get clean && rm -rf /var/lib/apt/lists/*
RUN ln -s /app /opt/local-inference-server
COPY start.sh /app/scripts/start.sh
COPY local-inference.service /etc/systemd/system/local-inference.service
COPY whisper-tiny.en /var/lib/local-inference/models/whisper-tiny.en
RUN systemctl enable local-inference
# The service gets its environment from the unit, not from the image.
ENV HOST= PORT= MODELS_DIR= DATABASE_URL= MODELS_MANIFEST= HOME=/root
ENTRYPOINT []
STOPSIGNAL SIGRTMIN+3
CMD ["/sbin/init"]
EOF
podman build -q --format docker -t "localhost/$name" "$work" >/dev/null
podman run -d --name "$name" --privileged --systemd=always "localhost/$name" >/dev/null
in_box() { podman exec "$name" "$@"; }

i=0
until in_box curl -sf 127.0.0.1:3000/healthz >/dev/null 2>&1; do
  i=$((i + 1))
  [ "$i" -le 60 ] || fail "no /healthz within 60 s"
  sleep 1
done
[ "$(in_box curl -s 127.0.0.1:3000/readyz)" = ready ] || fail "/readyz"
echo "active; healthz ok, readyz ready"

key="$(in_box setpriv --reuid=inference --regid=inference --clear-groups env -i PATH=/usr/local/bin:/usr/bin:/bin \
  DATABASE_URL=sqlite:/var/lib/local-inference/data/app.db \
  sh -c 'cd /opt/local-inference-server && node dist/scripts/keys.js create --name systemd-check' 2>/dev/null)"
podman cp "$here/samples/jfk.mp3" "$name:/tmp/jfk.mp3"
text="$(in_box curl -s -m 300 127.0.0.1:3000/v1/audio/transcriptions -H "Authorization: Bearer $key" \
  -F model=whisper-tiny.en -F file=@/tmp/jfk.mp3)"
echo "transcription: $text"
echo "$text" | grep -qi 'ask not what your country' || fail "transcription"

pid="$(in_box systemctl show -p MainPID --value local-inference)"
echo "main process: $(in_box readlink "/proc/$pid/exe") $(in_box "/proc/$pid/exe" --version)"
status="$(in_box cat "/proc/$pid/status")"
echo "$status" | grep -q '^Uid:[[:space:]]*10001' || fail "not uid 10001"
echo "$status" | grep -q '^CapEff:[[:space:]]*0000000000000000' || fail "has capabilities"
echo "$status" | grep -q '^NoNewPrivs:[[:space:]]*1' || fail "NoNewPrivileges"
echo "$status" | grep -q '^Seccomp:[[:space:]]*2' || fail "no seccomp filter"
in_box grep -q libjemalloc "/proc/$pid/maps" || fail "jemalloc not loaded"
in_box nsenter -t "$pid" -m sh -c '! touch /opt/local-inference-server/probe 2>/dev/null && ! touch /etc/probe 2>/dev/null' ||
  fail "the tree or /etc is writable"
in_box nsenter -t "$pid" -m sh -c 'touch /var/lib/local-inference/data/probe && rm /var/lib/local-inference/data/probe' ||
  fail "the state directory is not writable"
echo "uid 10001, no capabilities, no new privileges, seccomp, jemalloc; read-only but for /var/lib/local-inference"
in_box systemd-analyze security local-inference --no-pager 2>/dev/null | tail -1

in_box sh -c "kill -9 $pid"
sleep 6 # RestartSec=5s
[ "$(in_box systemctl show -p NRestarts --value local-inference)" = 1 ] || fail "no restart after kill -9"
i=0
until in_box curl -sf 127.0.0.1:3000/healthz >/dev/null 2>&1; do
  i=$((i + 1))
  [ "$i" -le 60 ] || fail "not serving within 60 s of the restart"
  sleep 1
done
echo "restarted after kill -9"
in_box systemctl stop local-inference
in_box journalctl -u local-inference --no-pager -o cat | grep -q '"message":"stopped"' || fail "no clean stop"
echo "stopped cleanly"
echo "PASS"
