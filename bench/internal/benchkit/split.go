package benchkit

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
)

// Split writes a deterministic train/test split of ds's text, line by line
// (the bytes of each example are copied, so every tool reads the same
// numbers), into the workspace, once per (set, seed, percent). Blank and
// comment lines are dropped. The permutation comes from a PCG seeded with
// seed, so the same flags always give the same split.
func (w *Workspace) Split(ds *Dataset, seed uint64, testPercent int) (train, test string, err error) {
	base := fmt.Sprintf("%s.split%d-%d", ds.Name, seed, testPercent)
	train, test = w.Path(base+".train.svm"), w.Path(base+".test.svm")
	if Fresh(train, ds.Path) && Fresh(test, ds.Path) {
		return train, test, nil
	}
	text, err := os.ReadFile(ds.Path)
	if err != nil {
		return "", "", err
	}
	var lines [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		var ln []byte
		if i < 0 {
			ln, text = text, nil
		} else {
			ln, text = text[:i], text[i+1:]
		}
		t := bytes.TrimSpace(ln)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		lines = append(lines, ln)
	}
	if len(lines) < 2 {
		return "", "", fmt.Errorf("%s: too few rows to split", ds.Name)
	}
	perm := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909)).Perm(len(lines))
	nTest := max(1, len(lines)*testPercent/100)
	isTest := make([]bool, len(lines))
	for _, k := range perm[:nTest] {
		isTest[k] = true
	}
	// Rows keep their file order inside each part.
	write := func(path string, want bool) error {
		return WriteAtomic(path, func(out io.Writer) error {
			for k, ln := range lines {
				if isTest[k] != want {
					continue
				}
				if _, err := out.Write(ln); err != nil {
					return err
				}
				if _, err := out.Write([]byte{'\n'}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := write(train, false); err != nil {
		return "", "", err
	}
	if err := write(test, true); err != nil {
		return "", "", err
	}
	return train, test, nil
}
