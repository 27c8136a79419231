#!/usr/bin/env bash
# Parse speed and memory, side by side in one run: acfcd info, scikit-learn's
# load_svmlight_file and liblinear-train's loader, on the same file.
#
#   bench/parse.sh FILE [ROUNDS]
#
# liblinear-train has no load-only mode: it is run with -e 1e9 so that
# training stops after one pass per class, which is small next to reading.
# Each tool runs ROUNDS times (default 5), alternating; medians are printed.
# Needs: python3-sklearn and liblinear-tools (Debian), GNU time.
set -euo pipefail
file=$1
rounds=${2:-5}
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/acfcd" ./cmd/acfcd
size=$(stat -c %s "$file")
nnz=$("$bin/acfcd" info --json "$file" | sed -E 's/.*"nnz":([0-9]+).*/\1/')

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# wall seconds and max RSS (KiB) of a command, as "secs kib"
measure() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }

declare -A secs rss
for r in $(seq "$rounds"); do
  for tool in acfcd acfcd-1thread sklearn liblinear; do
    case $tool in
      acfcd) out=$(measure "$bin/acfcd" info "$file") ;;
      acfcd-1thread) out=$(measure "$bin/acfcd" info --threads 1 "$file") ;;
      sklearn) out=$(measure /usr/bin/python3 -c "import sys; from sklearn.datasets import load_svmlight_file; load_svmlight_file(sys.argv[1])" "$file") ;;
      liblinear) out=$(measure liblinear-train -q -e 1e9 "$file" "$bin/m") ;;
    esac
    secs[$tool]+="${out% *} "
    rss[$tool]+="${out#* } "
  done
done
printf '%s: %d bytes, %d non-zeros, median of %d runs (wall time of the whole process)\n' "$file" "$size" "$nnz" "$rounds"
printf '%-15s %9s %9s %12s %12s\n' tool seconds MB/s maxRSS_MiB bytes/nnz
base=$(echo ${secs[acfcd]} | tr ' ' '\n' | median)
for tool in acfcd acfcd-1thread sklearn liblinear; do
  s=$(echo ${secs[$tool]} | tr ' ' '\n' | median)
  m=$(echo ${rss[$tool]} | tr ' ' '\n' | median)
  awk -v t=$tool -v s=$s -v m=$m -v size=$size -v nnz=$nnz -v b=$base 'BEGIN {
    printf "%-15s %9.3f %9.1f %12.1f %12.2f   %.1fx acfcd time\n", t, s, size/1e6/s, m/1024, m*1024/nnz, s/b }'
done
