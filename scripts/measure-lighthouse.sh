#!/usr/bin/env bash
# Lighthouse performance (desktop preset) of running services' pages, RUNS times each, one line per
# run and the median run's metrics, with the load next to them. It asserts nothing; it prints numbers.
#   scripts/measure-lighthouse.sh http://127.0.0.1:8080/docs http://127.0.0.1:8080/slowdns
# Several URLs (e.g. the same page on two builds) are measured interleaved, so load hits them alike.
# Needs chromium (CHROME_PATH, default /usr/bin/chromium) and npx (lighthouse is fetched by npx).
# CATEGORIES: what to score, comma-separated (default performance; the console's measurement adds
# accessibility). COOKIE: a Cookie header sent with every request (a console session: see
# docs/measurements.md).
set -eu

RUNS="${RUNS:-3}"
CATEGORIES="${CATEGORIES:-performance}"
COOKIE="${COOKIE:-}"
LIGHTHOUSE="${LIGHTHOUSE:-lighthouse@12.8.2}"
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

[ "$#" -gt 0 ] || { echo "usage: $0 URL..." >&2; exit 2; }

for run in $(seq 1 "$RUNS"); do
  index=0
  for url in "$@"; do
    index=$((index + 1))
    printf '%s run %s %s  load: %s\n' "$(date -u +%H:%M:%S)" "$run" "$url" "$(uptime | sed 's/.*load average: //')" >&2
    headers=()
    [ -z "$COOKIE" ] || headers=(--extra-headers "{\"Cookie\": \"$COOKIE\"}")
    npx -y "$LIGHTHOUSE" "$url" --preset=desktop --chrome-flags="--headless=new --no-sandbox" \
      --only-categories="$CATEGORIES" "${headers[@]}" --output=json --output-path="$out/$index-$run.json" --quiet
  done
done

index=0
for url in "$@"; do
  index=$((index + 1))
  node - "$url" "$out"/"$index"-*.json <<'EOF'
const { readFileSync } = require('node:fs');
const [url, ...files] = process.argv.slice(2);
const runs = files.map((file) => {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const metric = (id) => report.audits[id].numericValue;
  return {
    score: Math.round(report.categories.performance.score * 100),
    a11y: report.categories.accessibility ? ` accessibility ${Math.round(report.categories.accessibility.score * 100)}` : '',
    tbt: `${Math.round(metric('total-blocking-time'))} ms`,
    cls: metric('cumulative-layout-shift').toFixed(3),
    si: `${(metric('speed-index') / 1000).toFixed(2)} s`,
    lcp: `${(metric('largest-contentful-paint') / 1000).toFixed(2)} s`,
    fcp: `${(metric('first-contentful-paint') / 1000).toFixed(2)} s`,
  };
});
const line = (r) => `score ${r.score}${r.a11y}  TBT ${r.tbt}  CLS ${r.cls}  SI ${r.si}  LCP ${r.lcp}  FCP ${r.fcp}`;
console.log(url);
for (const r of runs) console.log(`  run     ${line(r)}`);
const median = [...runs].sort((a, b) => a.score - b.score)[Math.floor(runs.length / 2)];
console.log(`  median  ${line(median)}`);
EOF
done
printf 'load after: %s\n' "$(uptime | sed 's/.*load average: //')"
