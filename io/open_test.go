package dataio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bzip2Text is `printf '+1 1:0.5 3:1\n-1 2:2\n' | bzip2 -9`.
const bzip2Text = "\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\xc5\xa2\x84\x27\x00\x00\x02\xd8\x00\x00\x10\x40\x0b\x7a\x10\x20\x00\x21\xa4\xc9\x99\x34\x20\x1a\x69\xa0\x98\xda\x09\x82\x95\x78\x6a\x6f\x85\xdc\x91\x4e\x14\x24\x31\x68\xa1\x09\xc0"

// TestOpen: Open decompresses gzip and bzip2 by their magic bytes, reads
// other files as they are and refuses xz and zstd.
func TestOpen(t *testing.T) {
	const text = "+1 1:0.5 3:1\n-1 2:2\n"
	files := map[string][]byte{
		"plain.gz":  []byte(text), // the name does not matter
		"text.bz2":  []byte("BZh0 is not bzip2\n"),
		"short":     []byte("B"),
		"empty.svm": nil,
		"data":      gzipped(t, text),
		"data2":     []byte(bzip2Text),
	}
	for name, raw := range files {
		p := writeFile(t, name, raw)
		want := raw
		if name == "data" || name == "data2" {
			want = []byte(text)
		}
		r, err := Open(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: read %q, %v; want %q", name, got, err, want)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	}

	for head, want := range map[string]string{"\xfd7zXZ\x00rest": "xz", "\x28\xb5\x2f\xfdrest": "zstd"} {
		p := writeFile(t, want, []byte(head))
		if _, err := Open(p); err == nil || err.Error() != p+": "+want+"-compressed input is not supported; decompress it first" {
			t.Errorf("%s: %v", want, err)
		}
		if c, err := Compression(p); c != want || err != nil {
			t.Errorf("Compression(%s) = %q, %v", want, c, err)
		}
	}
	bad := writeFile(t, "bad.gz", []byte("\x1f\x8bnot gzip"))
	if _, err := Open(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": gzip: ") {
		t.Errorf("bad gzip header: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Open(missing); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Compression(missing); !os.IsNotExist(err) {
		t.Errorf("Compression of a missing file: %v", err)
	}
	if c, err := Compression(writeFile(t, "g", gzipped(t, text))); c != "gzip" || err != nil {
		t.Errorf("Compression(gzip) = %q, %v", c, err)
	}
	if c, err := Compression(writeFile(t, "p", []byte(text))); c != "" || err != nil {
		t.Errorf("Compression(plain) = %q, %v", c, err)
	}
}

// TestOpenTruncatedBzip2: a truncated compressed file is a read error, not
// a short text.
func TestOpenTruncatedBzip2(t *testing.T) {
	p := writeFile(t, "t.bz2", []byte("BZh91AY&SY\x00\x01"))
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); err == nil {
		t.Error("no error reading a truncated bzip2 file")
	}
}
