#!/bin/sh
# The container image's entry point (Dockerfile): the server by default, or one of the README's
# npm commands run from the build, since the image has no tsx or dev dependencies for `npm run`.
#
#   serve                      the server under jemalloc (scripts/server-allocator.sh), as `npm start`
#   download-models [args]     as `npm run download-models -- [args]`, into MODELS_DIR (/models)
#   keys [args]                as `npm run keys -- [args]`, on DATABASE_URL (/data/app.db)
#   anything else              run as given (node, sh, …)
set -e
cd /app
command="${1:-serve}"
[ "$#" -gt 0 ] && shift
case "$command" in
  serve) exec sh scripts/server-allocator.sh node dist/src/server.js "$@" ;;
  download-models) exec node dist/scripts/download-models.js "$@" ;;
  keys) exec node dist/scripts/keys.js "$@" ;;
  *) exec "$command" "$@" ;;
esac
