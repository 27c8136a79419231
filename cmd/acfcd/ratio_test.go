package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxRatio: a compressed file that expands far beyond its size is
// refused by every command that reads DATA, naming the file and
// --max-ratio; the flag raises the limit.
func TestMaxRatio(t *testing.T) {
	// Two bzip2 streams of 150000 rows "1 1:1" each (`yes '1 1:1' | head
	// -c 900000 | bzip2 -9`, twice): 1.8 MB of text from 194 bytes.
	member := "BZh91AY&SY\xb6\x88\x9f\x5b\x03\x6e\xe2\xd8\x00\x00\x10\x40\x00\x20\x10\x20\x00\x50\x66\x9a\x09\xaa\x9b\x53\x94\x41\x4a\x56\xa2\x0a\x52\xbd\xd4\x41\x4a\x57\x64\x41\x4a\x56\x44\x14\xa5\x7c\xc5\x05\x64\x99\x4d\x65\xbe\x8f\x5e\xdc\x00\x00\x07\x60\x00\x00\x41\x00\x00\x80\x40\x80\x00\xc3\x34\xd0\x8f\xd4\x25\x48\xca\xcc\xf1\x77\x24\x53\x85\x09\x00\x2b\x2e\x90\x00"
	dir := t.TempDir()
	data := writeText(t, dir, "rows.svm.bz2", member+member)
	want := data + ": bzip2-compressed input expands to more than 200 times its size (more than 1048576 bytes of text from 194 bytes), the limit for compressed input (--max-ratio)"
	for _, cmd := range []string{"info", "train", "convert"} {
		args := []string{cmd, data, filepath.Join(dir, "out")}
		if cmd == "info" {
			args = args[:2]
		}
		if _, _, err := runCmd(t, args...); err == nil || err.Error() != want {
			t.Errorf("%s:\n got  %v\n want %s", cmd, err, want)
		}
	}
	out, _, err := runCmd(t, "info", "--max-ratio", "10000", data)
	if err != nil || !strings.Contains(out, "300000") {
		t.Errorf("--max-ratio 10000: %v\n%s", err, out)
	}
}
