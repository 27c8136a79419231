package dataio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBlankLines: with Options.NoBlankLines the first blank or
// comment-only line is an error naming its line, in libsvm text (mapped,
// streamed, in parallel chunks) and NDJSON; without it such lines are
// skipped; a comment after an example and a missing final newline are
// fine either way.
func TestNoBlankLines(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text, want string
	}{
		{"blank", "1 1:1\n-1 2:1\n\n1 3:1\n", ":3:1: blank line, but each line must hold an example here"},
		{"spaces", "1 1:1\n \t\r\n1 3:1\n", ":2:4: blank line, but each line must hold an example here"},
		{"comment", "# header\n1 1:1\n", ":1:1: comment line, but each line must hold an example here"},
		{"last", "1 1:1\n-1 2:1 # fine\n1 3:1\n\n", ":4:1: blank line, but each line must hold an example here"},
		{"ndjson", "{\"label\": 1}\n\n{\"label\": -1}\n", ":2:1: blank line, but each line must hold an example here"},
		{"clean", "1 1:1\n-1 2:1 # a comment after an example\r\n1 3:1", ""},
		{"clean ndjson", "{\"label\": 1}\n{\"label\": -1}", ""},
	}
	for _, tc := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 3} {
			opt := Options{NoBlankLines: true, Threads: threads}
			d, err := Load(path, opt)
			ds, serr := Read(strings.NewReader(tc.text), path, opt)
			for _, e := range []error{err, serr} {
				if tc.want == "" {
					if e != nil {
						t.Errorf("%s: %v", tc.name, e)
					}
					continue
				}
				if e == nil || e.Error() != path+tc.want {
					t.Errorf("%s, %d threads: error %v, want %q", tc.name, threads, e, path+tc.want)
				}
			}
			if tc.want == "" && (d.Rows != strings.Count(tc.text, "\n")+1 || ds.Rows != d.Rows) {
				t.Errorf("%s: %d and %d rows", tc.name, d.Rows, ds.Rows)
			}
		}
		if _, err := Load(path, Options{}); err != nil {
			t.Errorf("%s without NoBlankLines: %v", tc.name, err)
		}
	}
}
