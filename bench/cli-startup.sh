#!/usr/bin/env bash
# Start-up of the installed CLI against a bare Node (`npm run bench:cli`): the compiled bin from
# dist/ (built first), on the project's Node 22, measured with hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
node_bin=node_modules/node/bin/node
report=examples/prefork-busy.html
bin=bin/httpd-status-alerts.mjs
hyperfine -N --warmup 5 --runs "${RUNS:-40}" --export-json "${OUT:-/dev/null}" \
  -n 'node -e 0' "$node_bin -e 0" \
  --command-name 'bin version' "$node_bin $bin --version" \
  -n 'bin parse --json' "$node_bin $bin parse $report --json" \
  -n 'bin check --file' "$node_bin $bin check --file $report --now 2026-11-22T12:00:00Z"
