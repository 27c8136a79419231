#!/bin/sh
# run.sh: build the C reference kernels with gcc -O3 -march=native in a
# temporary directory and print their benchmarks in Go benchmark format,
# to sit beside
#
#   go test ./kernel -run '^$' -bench 'Dot|Axpy'
#
# Usage: bench/kernelref/run.sh [-benchtime SECONDS] [-count N] [-bench Dot|Axpy]
# Environment: CC (default gcc); FASTMATH=1 adds a second build with
# -ffast-math (impl=c-O3-native-fastmath), which lets gcc vectorize the
# Dot reduction.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=${CC:-gcc}

"$cc" -O3 -march=native -o "$tmp/kernelref" "$dir/kernelref.c"
echo "goos: $(uname -s | tr A-Z a-z)"
echo "goarch: $(uname -m)"
echo "pkg: github.com/acfcd/acfcd/bench/kernelref ($("$cc" --version | head -n1), -O3 -march=native)"
if [ -r /proc/cpuinfo ]; then
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
fi
"$tmp/kernelref" c-O3-native "$@"
if [ "${FASTMATH:-0}" = 1 ]; then
	"$cc" -O3 -march=native -ffast-math -o "$tmp/kernelref-fm" "$dir/kernelref.c"
	"$tmp/kernelref-fm" c-O3-native-fastmath "$@"
fi
