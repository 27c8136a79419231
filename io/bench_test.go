package dataio

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// BenchmarkLoad loads the files named in $ACFCD_BENCH_FILES (a
// colon-separated list; by default news20x10 in the temporary directory
// ($TMPDIR) when it exists, made from the data sets of $ACFCD_DATA by
//
//	bzcat "$ACFCD_DATA/news20.bz2" > "${TMPDIR:-/tmp}/news20"
//	for i in $(seq 10); do cat "${TMPDIR:-/tmp}/news20"; done > "${TMPDIR:-/tmp}/news20x10"
//
// ) with 1 and 2 threads, and reports the parse speed in MB/s of text and
// the resident memory the loaded dataset takes in bytes per non-zero
// (VmRSS after loading, less VmRSS before, both after a GC that returns
// free memory to the OS). Run with
//
//	go test ./io -run '^$' -bench BenchmarkLoad -count 5
func BenchmarkLoad(b *testing.B) {
	list := os.Getenv("ACFCD_BENCH_FILES")
	if list == "" {
		list = filepath.Join(os.TempDir(), "news20x10")
		if _, err := os.Stat(list); err != nil {
			b.Skip("no benchmark file: set ACFCD_BENCH_FILES or create " + list)
		}
	}
	for _, path := range strings.Split(list, ":") {
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("file=%s/threads=%d", filepath.Base(path), threads), func(b *testing.B) {
				opt := Options{Threads: threads}
				perNNZ := residentPerNNZ(b, path, opt)
				for b.Loop() {
					if _, err := Load(path, opt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(st.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
				if perNNZ > 0 {
					b.ReportMetric(perNNZ, "B/nnz")
				}
			})
		}
	}
}

// residentPerNNZ loads path once and returns the growth of the resident
// set per non-zero, or 0 where VmRSS cannot be read.
func residentPerNNZ(b *testing.B, path string, opt Options) float64 {
	settle := func() int64 {
		runtime.GC()
		debug.FreeOSMemory()
		return vmRSS()
	}
	before := settle()
	d, err := Load(path, opt)
	if err != nil {
		b.Fatal(err)
	}
	after := settle()
	nnz := d.NNZ()
	runtime.KeepAlive(d)
	if before <= 0 || after <= 0 {
		return 0
	}
	return float64(after-before) / float64(nnz)
}

// vmRSS returns the process's resident set in bytes from /proc, or -1.
func vmRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// BenchmarkParse parses $ACFCD_BENCH_TEXT (default news20 in $TMPDIR) from
// memory with one thread, reporting text MB per second of this process's
// CPU time as well, which a busy machine disturbs less than wall time.
func BenchmarkParse(b *testing.B) {
	path := os.Getenv("ACFCD_BENCH_TEXT")
	if path == "" {
		path = filepath.Join(os.TempDir(), "news20")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	opt := Options{Threads: 1}
	chunks := splitLines(data, 1, 1<<30)
	c0 := csrtest.CPUSeconds()
	for b.Loop() {
		if _, err := parseLibSVM(path, chunks, opt); err != nil {
			b.Fatal(err)
		}
	}
	cpu := csrtest.CPUSeconds() - c0
	b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	if cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// BenchmarkReadStream measures Read on a stream (no mapping: what stdin,
// a pipe or a decompressed file goes through), the guard against NUL
// bytes and endless lines included. ACFCD_BENCH_FILES as for BenchmarkLoad.
//
//	go test ./io -run '^$' -bench BenchmarkReadStream -count 10
func BenchmarkReadStream(b *testing.B) {
	list := os.Getenv("ACFCD_BENCH_FILES")
	if list == "" {
		b.Skip("no benchmark file: set ACFCD_BENCH_FILES")
	}
	for _, path := range strings.Split(list, ":") {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("file=%s/threads=2", filepath.Base(path)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data), path, Options{Threads: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
		})
	}
}
