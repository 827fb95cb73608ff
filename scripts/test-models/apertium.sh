#!/usr/bin/env bash
# Installs Apertium and the English–Spanish pair from Debian (the models apertium-eng-spa and
# apertium-spa-eng in models/models.json). Idempotent: does nothing when the mode file exists.
# Needs root (or sudo) for apt-get; otherwise prints the command to run and skips.
set -euo pipefail
packages=(apertium apertium-eng-spa)
mode=/usr/share/apertium/modes/eng-spa.mode

if [[ -f "$mode" ]] && command -v lt-proc >/dev/null; then
  echo "apertium-eng-spa already installed ($mode)"
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  apt=(apt-get)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  apt=(sudo apt-get)
else
  # Not fatal: the other test models can still be installed; Apertium tests skip with a message.
  echo "SKIPPED: Apertium is not installed and this user cannot run apt-get. Run as root:" >&2
  echo "  apt-get update && apt-get install -y ${packages[*]}" >&2
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh container has empty package lists; refresh only when the package is unknown.
if ! apt-cache show apertium-eng-spa >/dev/null 2>&1; then
  "${apt[@]}" update -q
fi
"${apt[@]}" install -y -q --no-install-recommends "${packages[@]}"
test -f "$mode"
echo "apertium-eng-spa installed ($mode)"
