#!/usr/bin/env bash
# Start-up of the installed CLI against a bare Node, and the same job by the centreon Apache plugin
# (`npm run bench:cli`): the compiled bin from dist/ (built first), on the project's Node 22,
# measured with hyperfine (apt-get install hyperfine; centreon-plugins and libwww-perl for the
# comparison, skipped with a note when absent). The ?auto page is served from loopback by a
# throw-away python3 http.server, so both plugins fetch the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
node_bin=node_modules/node/bin/node
report=examples/prefork-busy.html
bin=bin/httpd-status-alerts.mjs
centreon=/usr/lib/nagios/plugins/centreon_plugins.pl

site=$(mktemp -d)
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$site"' EXIT
mkdir -p "$site/server-status"
cp test/fixtures/apache-2.4.71/prefork-busy/report.auto.txt "$site/server-status/index.html"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$site" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server_pid=$!
url="http://127.0.0.1:$port/server-status/?auto"
for _ in $(seq 50); do curl -fs "$url" >/dev/null 2>&1 && break; sleep 0.1; done

runs=("$node_bin -e 0" "$node_bin $bin --version" "$node_bin $bin parse $report --json"
  "$node_bin $bin check --file $report" "$node_bin $bin check --url $url")
names=('node -e 0' 'bin --version' 'bin parse --json' 'bin check --file' 'bin check --url')
if [ -x "$centreon" ] && perl -MLWP::UserAgent -e 1 2>/dev/null; then
  runs+=("$centreon --plugin=apps::apache::serverstatus::plugin --mode=workers --hostname=127.0.0.1 --port=$port --proto=http --urlpath=/server-status/?auto")
  names+=('centreon apache workers')
else
  echo "centreon-plugins or libwww-perl not installed: the comparison with the Perl plugin is left out" >&2
fi
args=()
for i in "${!runs[@]}"; do args+=(-n "${names[$i]}" "${runs[$i]}"); done
# -i: check exits 1 or 2 when an alert fires, as a plugin does.
hyperfine -N -i --warmup 5 --runs "${RUNS:-40}" --export-json "${OUT:-/dev/null}" "${args[@]}"
