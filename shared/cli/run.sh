#!/bin/sh
# Runs one of the CLIs from its esbuild bundle: run.sh <call|app|authenticator|admin> [arguments], or run.sh --build.
# The launcher (shared/cli/launch.ts) rebuilds the bundles whenever their sources change; this script only makes the
# launcher itself, when there is none yet (as after `npm ci --ignore-scripts`) or its own sources are newer.
root=$(dirname "$0")/../..
launcher=$root/node_modules/.cache/mfa-cli/launch.mjs
if [ ! -f "$launcher" ] || [ "$root/shared/cli/launch.ts" -nt "$launcher" ] || [ "$root/shared/cli/build.ts" -nt "$launcher" ]; then
  "$root/node_modules/.bin/esbuild" "$root/shared/cli/launch.ts" --bundle --platform=node --format=esm \
    --target=node20 --packages=external --log-level=warning --outfile="$launcher" || exit 1
fi
exec node "$launcher" "$@"
