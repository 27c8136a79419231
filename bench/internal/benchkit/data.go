// Package benchkit holds what the benchmark commands under bench/ share:
// the data workspace (finding, decompressing, deriving and splitting the
// sets of ../shared/data), running liblinear-train and reading its output,
// the command-line frame (Main, flags, the default data directory) and
// small helpers (CSV and Markdown fields, median, process CPU time).
package benchkit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	dataio "github.com/acfcd/acfcd/io"
)

// Dataset is one benchmark problem as plain libsvm text on disk, the file
// that every tool reads.
type Dataset struct {
	Name string
	Path string // plain text training file
	Test string // plain text held-out file, "" if the set has none
}

// Workspace owns the directory of decompressed and derived files.
type Workspace struct {
	dir   string
	temp  bool // remove dir at the end
	data  string
	quiet bool
}

// NewWorkspace returns a workspace reading the sets of dataDir. Derived
// files go to workDir, which is kept and reused across runs; with workDir
// "" they go to a temporary directory that Close removes. quiet silences
// the progress lines on stderr.
func NewWorkspace(dataDir, workDir string, quiet bool) (*Workspace, error) {
	w := &Workspace{data: dataDir, quiet: quiet}
	if workDir != "" {
		if err := os.MkdirAll(workDir, 0o755); err != nil {
			return nil, err
		}
		w.dir = workDir
		return w, nil
	}
	d, err := os.MkdirTemp("", "acfcd-bench-")
	if err != nil {
		return nil, err
	}
	w.dir, w.temp = d, true
	return w, nil
}

// Close removes the temp directory (a -workdir is kept).
func (w *Workspace) Close() error {
	if w.temp {
		return os.RemoveAll(w.dir)
	}
	return nil
}

// Dir is the workspace directory.
func (w *Workspace) Dir() string { return w.dir }

// Path returns a file name inside the workspace.
func (w *Workspace) Path(name string) string { return filepath.Join(w.dir, name) }

// Prepare finds set name in the data directory and returns it as plain
// text, decompressing or deriving it once. news20bin is news20 with
// classes 1–10 relabelled +1 and 11–20 relabelled −1. A held-out file is
// looked up as NAME_test or NAME.t.
func (w *Workspace) Prepare(name string) (*Dataset, error) {
	ds := &Dataset{Name: name}
	var err error
	if name == "news20bin" {
		ds.Path, err = w.Derive("news20", "news20bin.svm", News20Binary)
	} else {
		ds.Path, err = w.Plain(name, true)
	}
	if err != nil {
		return nil, err
	}
	for _, t := range []string{name + "_test", name + ".t"} {
		if p, err := w.Plain(t, false); err == nil {
			ds.Test = p
			break
		}
	}
	return ds, nil
}

// Find returns the file of set name in the data directory.
func (w *Workspace) Find(name string) (string, error) {
	for _, suf := range []string{"", ".svm", ".bz2", ".svm.bz2", ".gz", ".svm.gz"} {
		p := filepath.Join(w.data, name+suf)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("data set %q not found in %s (tried NAME, NAME.svm, NAME[.svm].bz2, NAME[.svm].gz)", name, w.data)
}

// Plain returns a plain-text copy of set name: the file itself when it is
// not compressed, else a decompressed copy in the workspace.
func (w *Workspace) Plain(name string, verbose bool) (string, error) {
	src, err := w.Find(name)
	if err != nil {
		return "", err
	}
	comp, err := Compression(src)
	if err != nil {
		return "", err
	}
	if comp == "" {
		return src, nil
	}
	dst := w.Path(name + ".svm")
	if Fresh(dst, src) {
		return dst, nil
	}
	if verbose && !w.quiet {
		fmt.Fprintf(os.Stderr, "decompressing %s\n", src)
	}
	return dst, WriteAtomic(dst, func(out io.Writer) error { return Decompress(src, comp, out) })
}

// Derive writes dst (in the workspace) by passing the decompressed text of
// set src through fn, once.
func (w *Workspace) Derive(src, dst string, fn func(io.Reader, io.Writer) error) (string, error) {
	in, err := w.Find(src)
	if err != nil {
		return "", err
	}
	out := w.Path(dst)
	if Fresh(out, in) {
		return out, nil
	}
	if !w.quiet {
		fmt.Fprintf(os.Stderr, "deriving %s from %s\n", dst, in)
	}
	comp, err := Compression(in)
	if err != nil {
		return "", err
	}
	return out, WriteAtomic(out, func(wr io.Writer) error {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(Decompress(in, comp, pw)) }()
		err := fn(pr, wr)
		pr.CloseWithError(errors.New("stopped"))
		return err
	})
}

// Fresh reports whether dst exists and is newer than src.
func Fresh(dst, src string) bool {
	d, err := os.Stat(dst)
	if err != nil {
		return false
	}
	s, err := os.Stat(src)
	return err == nil && !d.ModTime().Before(s.ModTime())
}

// Compression returns "bz2", "gz" or "" from the file's magic bytes (as
// dataio.Load recognises them; other compressions count as plain text).
func Compression(path string) (string, error) {
	c, err := dataio.Compression(path)
	switch c {
	case "bzip2":
		return "bz2", err
	case "gzip":
		return "gz", err
	}
	return "", err
}

// Decompress writes the decompressed content of path to out, with the
// system's bzip2/gzip when present (faster) and dataio.Open otherwise;
// comp "" copies a plain file as it is.
func Decompress(path, comp string, out io.Writer) error {
	if tool := map[string]string{"bz2": "bzip2", "gz": "gzip"}[comp]; tool != "" {
		if p, err := exec.LookPath(tool); err == nil {
			cmd := exec.Command(p, "-dc", path)
			cmd.Stdout = out
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s -dc %s: %v: %s", tool, path, err, strings.TrimSpace(stderr.String()))
			}
			return nil
		}
	}
	open := dataio.Open
	if comp == "" {
		open = func(path string) (io.ReadCloser, error) { return os.Open(path) }
	}
	r, err := open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(out, r)
	return err
}

// WriteAtomic writes path through fn via a temporary file and a rename, so
// that an interrupted run never leaves a truncated file to be reused.
func WriteAtomic(path string, fn func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// News20Binary copies news20 text, relabelling classes 1–10 as +1 and
// 11–20 as −1. The features are copied byte for byte.
func News20Binary(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimLeft(sc.Bytes(), " \t")
		if len(b) == 0 {
			continue
		}
		end := bytes.IndexAny(b, " \t")
		if end < 0 {
			end = len(b)
		}
		lab, err := strconv.ParseFloat(string(b[:end]), 64)
		if err != nil || lab < 1 || lab > 20 || lab != float64(int(lab)) {
			return fmt.Errorf("news20 line %d: label %q is not a class 1..20", line, b[:end])
		}
		out := "-1"
		if lab <= 10 {
			out = "+1"
		}
		if _, err := io.WriteString(w, out); err != nil {
			return err
		}
		if _, err := w.Write(b[end:]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return sc.Err()
}
