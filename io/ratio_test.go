package dataio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// bzip2Member is `yes '1 1:1' | head -c 900000 | bzip2 -9`: one bzip2
// stream of 900000 bytes of valid rows (150000 of them) in 97 bytes.
// Streams concatenated are one bzip2 file, as gzip members are one gzip
// file, so k copies make a file whose text is k·900000 bytes.
const bzip2Member = "BZh91AY&SY\xb6\x88\x9f\x5b\x03\x6e\xe2\xd8\x00\x00\x10\x40\x00\x20\x10\x20\x00\x50\x66\x9a\x09\xaa\x9b\x53\x94\x41\x4a\x56\xa2\x0a\x52\xbd\xd4\x41\x4a\x57\x64\x41\x4a\x56\x44\x14\xa5\x7c\xc5\x05\x64\x99\x4d\x65\xbe\x8f\x5e\xdc\x00\x00\x07\x60\x00\x00\x41\x00\x00\x80\x40\x80\x00\xc3\x34\xd0\x8f\xd4\x25\x48\xca\xcc\xf1\x77\x24\x53\x85\x09\x00\x2b\x2e\x90\x00"

// bombRows is the text of one bomb member: valid rows, about 1 MiB.
var bombRows = strings.Repeat("1 1:1\n", 1<<20/6)

// gzipBomb returns k gzip members of bombRows each, about 1000 times
// smaller than their text.
func gzipBomb(t *testing.T, k int) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	io.WriteString(w, bombRows)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(b.Bytes(), k)
}

// TestDecompressionBomb: compressed input that expands beyond
// Options.MaxRatio times its size is refused, naming the file and the
// option, once that much text is read (in bounded memory, before any
// parsing), as a file (whose size is known) and as a stream (whose size so
// far counts); gzip and bzip2 alike.
func TestDecompressionBomb(t *testing.T) {
	gz := gzipBomb(t, 48)                             // 48 MiB of text, ~1000×
	bz := []byte(strings.Repeat(bzip2Member, 56))     // 48 MiB of text, ~9300×
	if r := 48 << 20 / len(gz); r < 500 || r > 1100 { // the premise
		t.Fatalf("gzip bomb ratio %d", r)
	}
	for _, c := range []struct {
		name, via string
		data      []byte
	}{{"bomb.gz", "gzip", gz}, {"bomb.bz2", "bzip2", bz}} {
		path := writeFile(t, c.name, c.data)
		limit := max(int64(DefaultMaxRatio)*int64(len(c.data)), minRatioText)
		for _, how := range []string{"Load", "Read"} {
			var err error
			// The text read is at most the limit plus a block, and it is
			// refused before parsing: the heap holds neither rows nor
			// (where blocks are mapped) text.
			alloc := testkit.Allocated(func() {
				if how == "Load" {
					_, err = Load(path, Options{})
				} else {
					_, err = Read(bytes.NewReader(c.data), c.name, Options{})
				}
			})
			want := fmt.Sprintf("%s: %s-compressed input expands to more than %d times its size", map[string]string{"Load": path, "Read": c.name}[how], c.via, DefaultMaxRatio)
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "the limit for compressed input (Options.MaxRatio)") {
				t.Errorf("%s %s: err %v, want %q ... (Options.MaxRatio)", how, c.name, err, want)
			}
			if bound := uint64(limit) + 3*uint64(streamBlockBytes) + 8<<20; alloc > bound {
				t.Errorf("%s %s: allocated %d MiB, want at most %d MiB", how, c.name, alloc>>20, bound>>20)
			}
			t.Logf("%s %s (%d bytes): allocated %d KiB", how, c.name, len(c.data), alloc>>10)
		}
	}
}

// TestMaxRatio: a raised Options.MaxRatio reads what the default refuses;
// text up to minRatioText is never refused, whatever its ratio; a file
// within the ratio is read, one just beyond it is not.
func TestMaxRatio(t *testing.T) {
	gz := gzipBomb(t, 3)
	rows := 3 * (1 << 20 / 6)
	if _, err := Read(bytes.NewReader(gz), "s", Options{}); err == nil {
		t.Fatalf("the default ratio read %d bytes from %d", 3*len(bombRows), len(gz))
	}
	ratio := (3*len(bombRows) + len(gz) - 1) / len(gz) // rounded up: the least that reads it
	for _, opt := range []Options{{MaxRatio: ratio}, {MaxRatio: math.MaxInt}} {
		d, err := Load(writeFile(t, "ok.gz", gz), opt)
		if err != nil || d.Rows != rows {
			t.Fatalf("MaxRatio %d: %v, err %v", opt.MaxRatio, d, err)
		}
	}
	opt := Options{MaxRatio: ratio - 1}
	if _, err := Load(writeFile(t, "over.gz", gz), opt); err == nil {
		t.Errorf("MaxRatio %d: read %d bytes from %d", opt.MaxRatio, 3*len(bombRows), len(gz))
	}
	small := gzipBomb(t, 1) // 1 MiB of text from 1 KiB
	if d, err := Read(bytes.NewReader(small), "s", Options{MaxRatio: 1}); err != nil || d.Rows != rows/3 {
		t.Errorf("small text: %v, err %v", d, err)
	}
	d, err := Read(bytes.NewReader([]byte(bzip2Member)), "s", Options{MaxRatio: 1})
	if err != nil || d.Rows != 150000 {
		t.Errorf("bzip2, small text: %v, err %v", d, err)
	}
}
