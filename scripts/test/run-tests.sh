#!/bin/sh
# `npm test`: the type checks run beside the mocha suite, not before it (tsc takes one core for
# ~10 s; run first, it left the other idle that long). The files that wait on real models and
# child processes (test/http, test/scripts, test/server) go first, so the run ends on short files
# that keep both jobs busy instead of one job finishing a long file alone. Extra arguments go to mocha.
FIRST='test/http test/scripts test/server'
first_files=$(find $FIRST -name '*.test.ts' ! -name '*.slow.test.ts' | sort)
other_files=$(find test -name '*.test.ts' ! -name '*.slow.test.ts' | sort | grep -v -e '^test/http/' -e '^test/scripts/' -e '^test/server/')
npm run --silent typecheck &
typecheck=$!
# shellcheck disable=SC2086 # the lists are split on purpose; test file names have no spaces
mocha --parallel --jobs 2 $first_files $other_files "$@"
tests=$?
wait "$typecheck"
types=$?
[ "$types" -eq 0 ] || echo "npm test: the type checks failed (npm run typecheck)" >&2
[ "$tests" -eq 0 ] && [ "$types" -eq 0 ]
