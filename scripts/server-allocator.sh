#!/bin/sh
# Runs its arguments with the allocator the server runs under (`npm start`, the benchmarks' side
# of ours): jemalloc when the system has it (Debian/Ubuntu: libjemalloc2), else glibc tuned.
# Both give unloaded models' memory back to the system (docs/operations.md,
# "Memory and the allocator"; glibc's defaults keep much of it), and jemalloc also lowers the ASR peak.
# Settings already in the environment win, so an operator can choose otherwise.
if [ -z "${LD_PRELOAD:-}" ] && [ -z "${MALLOC_ARENA_MAX:-}" ]; then
  for lib in /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do
    if [ -f "$lib" ]; then
      export LD_PRELOAD="$lib"
      export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0}"
      break
    fi
  done
  if [ -z "${LD_PRELOAD:-}" ]; then
    export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=65536
  fi
fi
exec "$@"
