#!/bin/sh
# Runs the image the Dockerfile built against copies of installed models and checks what
# docs/operations.md ("What was verified here") lists: the image's Node.js, the installer and the
# keys CLI inside the image, the server as uid 10001 on a read-only root filesystem under jemalloc,
# /healthz, /readyz, a transcription, a speech answer, the HEALTHCHECK (Podman) and a clean stop.
# Builds nothing; removes its container and volumes at the end. Not part of .ci/run (it needs a built image).
#
#   sh scripts/container/smoke-test.sh [image]       (default localhost/local-inference-server:0.1.0)
#
# ENGINE=docker to use Docker (default podman); MODELS: a folder of installed models with
# whisper-tiny.en, silero-vad-v6 and piper-en_US-joe-medium (default models/, npm run test-models);
# PORT: the host port (default 3300).
set -eu
engine="${ENGINE:-podman}"
image="${1:-localhost/local-inference-server:0.1.0}"
models="$(cd "${MODELS:-models}" && pwd)"
port="${PORT:-3300}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
name="lis-smoke-$$"
base="http://127.0.0.1:$port"

fail() {
  echo "FAIL: $*" >&2
  "$engine" logs "$name" 2>&1 | tail -20 >&2 || true
  exit 1
}
cleanup() {
  "$engine" rm -f -v "$name" >/dev/null 2>&1 || true
  "$engine" volume rm -f "$name-models" "$name-data" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$engine" volume create "$name-models" >/dev/null
"$engine" volume create "$name-data" >/dev/null
in_image() {
  "$engine" run --rm -v "$name-models:/models" -v "$name-data:/data" -v "$models:/import:ro" "$image" "$@"
}

echo "== the image's Node.js: $(in_image node --version)"

echo "== the image's installer, offline (--from a folder of installed models)"
# whisper-tiny.en's graphs keep their weights in external .onnx_data files, which come along.
in_image download-models --from /import whisper-tiny.en silero-vad-v6 piper-en_US-joe-medium
in_image sh -c 'ls -l /models /models/whisper-tiny.en/onnx'

echo "== the server: read-only root filesystem, port $port"
"$engine" run -d --name "$name" --read-only --tmpfs /tmp -p "127.0.0.1:$port:3000" \
  -v "$name-models:/models" -v "$name-data:/data" "$image" >/dev/null
i=0
until curl -sf "$base/healthz" >/dev/null 2>&1; do
  i=$((i + 1))
  [ "$i" -le 60 ] || fail "no /healthz within 60 s"
  sleep 1
done
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz"
[ "$(curl -s "$base/readyz")" = ready ] || fail "/readyz"
echo "healthz ok, readyz ready"
[ "$("$engine" exec "$name" id -u)" = 10001 ] || fail "not uid 10001"
"$engine" exec "$name" grep -q libjemalloc /proc/1/maps || fail "jemalloc not loaded"
echo "uid 10001, jemalloc loaded in process 1 ($("$engine" exec "$name" cat /proc/1/cmdline | tr '\0' ' '))"

echo "== a key from the image's keys CLI, then the models"
key="$("$engine" exec "$name" entrypoint keys create --name smoke-test)"
case "$key" in lis_*) ;; *) fail "keys create printed no key" ;; esac
text="$(curl -s -m 300 "$base/v1/audio/transcriptions" -H "Authorization: Bearer $key" \
  -F model=whisper-tiny.en -F file=@"$here/samples/jfk.mp3")"
echo "transcription: $text"
echo "$text" | grep -qi 'ask not what your country' || fail "transcription"
curl -s -m 120 -o "/tmp/$name.wav" "$base/v1/audio/speech" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d '{"model":"tts-1","voice":"alloy","input":"Hello from the container.","response_format":"wav"}'
[ "$(head -c 4 "/tmp/$name.wav")" = RIFF ] || fail "speech is not a WAV"
echo "speech: $(wc -c <"/tmp/$name.wav") bytes of WAV"
rm -f "/tmp/$name.wav"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/models")" = 401 ] || fail "/v1 without a key"

if [ "$engine" = podman ]; then
  "$engine" healthcheck run "$name" 2>/dev/null || fail "HEALTHCHECK"
  echo "HEALTHCHECK: healthy"
fi

echo "== stop (SIGTERM)"
"$engine" stop -t 45 "$name" >/dev/null
[ "$("$engine" inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail "exit code"
"$engine" logs "$name" 2>&1 | grep -q '"message":"stopped"' || fail "no clean stop in the log"
echo "stopped cleanly, exit 0"
echo "PASS"
