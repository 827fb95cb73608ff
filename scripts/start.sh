#!/bin/sh
# `npm start`: the built server, under the allocator scripts/server-allocator.sh picks.
here="$(dirname "$0")"
exec sh "$here/server-allocator.sh" node "$here/../dist/src/server.js" "$@"
