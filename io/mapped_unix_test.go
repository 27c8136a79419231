//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package dataio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBigText writes a libsvm file of several MB (many pages, many chunks).
func writeBigText(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < 6<<20; i++ {
		fmt.Fprintf(&b, "%+d", 1-2*(i%2))
		for j := 1; j <= 40; j++ {
			fmt.Fprintf(&b, " %d:%.6f", j*7+i%5, float64(i*j%1000)/1000)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "big.svm")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mapTruncated maps path and then truncates the file to keep bytes, so
// that reading the mapping past the first page raises SIGBUS.
func mapTruncated(t *testing.T, path string, keep int64, before func(data []byte)) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	data, release, err := mapFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	if before != nil {
		before(data)
	}
	if err := os.Truncate(path, keep); err != nil {
		t.Fatal(err)
	}
	return data
}

// skipIfNoAddr turns a fault that came without its address (qemu-user),
// which the runtime cannot tell from a nil dereference, into a skip.
func skipIfNoAddr(t *testing.T) {
	if r := recover(); r != nil {
		t.Skipf("the fault came without its address (running under an emulator?): %v", r)
	}
}

// A libsvm file truncated while mapped gives an error naming the file, not
// a crash: first with the fault on the calling goroutine (splitLines).
func TestMappedTextTruncated(t *testing.T) {
	path := writeBigText(t)
	for _, threads := range []int{1, 2, 4} {
		func() {
			defer skipIfNoAddr(t)
			data := mapTruncated(t, path, 4096, nil)
			d, err := parseMapped(path, data, Options{Threads: threads})
			if d != nil || !errors.Is(err, errFault) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("threads %d: %v, want %s: %v", threads, err, path, errFault)
			}
		}()
		// Restore the file for the next round.
		os.Remove(path)
		path = writeBigText(t)
	}
}

// The same with the fault in the parsing goroutines: the chunks were cut
// before the file shrank.
func TestMappedTextTruncatedWhileParsing(t *testing.T) {
	path := writeBigText(t)
	for _, threads := range []int{1, 2, 4} {
		func() {
			defer skipIfNoAddr(t)
			var chunks [][]byte
			mapTruncated(t, path, 4096, func(data []byte) {
				chunks = splitLines(data, 16, 1)
			})
			d, err := parseLibSVM(path, chunks, Options{Threads: threads})
			if d != nil || !errors.Is(err, errFault) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("threads %d: %v, want %s: %v", threads, err, path, errFault)
			}
		}()
		os.Remove(path)
		path = writeBigText(t)
	}
}
