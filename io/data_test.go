package dataio

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// TestDataDir loads every data file in $ACFCD_DATA (skipped when unset;
// ../shared/data holds bzip2 libsvm files) and compares the result with
// the reference reader, and with the rows, largest index and nnz listed
// for the file in SOURCES.md there, when it is listed.
func TestDataDir(t *testing.T) {
	dir := os.Getenv("ACFCD_DATA")
	if dir == "" {
		t.Skip("ACFCD_DATA not set")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sources, _ := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, ".md") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			d, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			text, err := decompressed(path)
			if err != nil {
				t.Fatal(err)
			}
			if d.InputBytes != int64(len(text)) {
				t.Errorf("InputBytes %d, text is %d bytes", d.InputBytes, len(text))
			}
			ref, _, err := refRead(string(text), Options{})
			if err != nil {
				t.Fatalf("reference reader: %v", err)
			}
			if diff := sameData(d, ref); diff != "" {
				t.Errorf("differs from the reference reader: %s", diff)
			}
			if rows, maxIdx, nnz, ok := listed(sources, name); ok {
				if int64(d.Rows) != rows || int64(d.Features) != maxIdx || d.NNZ() != nnz {
					t.Errorf("rows %d, features %d, nnz %d; SOURCES.md says %d, %d, %d", d.Rows, d.Features, d.NNZ(), rows, maxIdx, nnz)
				}
			} else {
				t.Logf("%s is not listed in SOURCES.md", name)
			}
			t.Logf("%d rows, %d features, %d nnz, %d bytes of text", d.Rows, d.Features, d.NNZ(), d.InputBytes)
		})
	}
}

// decompressed returns the text of a file, through the bzip2 program when
// there is one (faster) and Open otherwise.
func decompressed(path string) ([]byte, error) {
	if c, err := Compression(path); err == nil && c == "bzip2" {
		if bzip2, ok := testkit.Runs("bzip2", "--help"); ok {
			return exec.Command(bzip2, "-dc", path).Output()
		}
	}
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// listed finds the row of SOURCES.md for file: | File | Origin | Source |
// sha256 | Rows | Features (max idx / published) | nnz | ...
func listed(sources []byte, file string) (rows, maxIdx, nnz int64, ok bool) {
	num := func(s string) (int64, bool) {
		s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
		if f := strings.Fields(s); len(f) > 0 {
			s = f[0]
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil
	}
	for _, line := range strings.Split(string(sources), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 8 || strings.TrimSpace(f[1]) != file {
			continue
		}
		r, ok1 := num(f[5])
		m, ok2 := num(f[6])
		z, ok3 := num(f[7])
		return r, m, z, ok1 && ok2 && ok3
	}
	return 0, 0, 0, false
}
