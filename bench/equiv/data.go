package main

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// derived data sets: name → the source file in the data directory and the
// line mapping that produces it.
var derived = map[string]struct {
	source string
	line   func([]byte) ([]byte, error)
}{
	"news20bin": {"news20.bz2", news20binLine},
}

// news20binLabel maps news20's classes 1..10 to +1 and 11..20 to -1.
func news20binLabel(label []byte) (string, error) {
	k, err := strconv.Atoi(string(label))
	if err != nil || k < 1 || k > 20 {
		return "", fmt.Errorf("label %q is not a class 1..20", label)
	}
	if k <= 10 {
		return "+1", nil
	}
	return "-1", nil
}

// news20binLine relabels one line of news20 and keeps its features.
func news20binLine(line []byte) ([]byte, error) {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		return nil, nil
	}
	end := bytes.IndexAny(line, " \t")
	if end < 0 {
		end = len(line)
	}
	lab, err := news20binLabel(line[:end])
	if err != nil {
		return nil, err
	}
	return append([]byte(lab), line[end:]...), nil
}

// checkData makes sure every file the runs read is in dir.
func checkData(dir string, runs []run) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("data directory %s not found (set -data or $ACFCD_DATA)", dir)
	}
	for _, r := range runs {
		file := r.data
		if d, ok := derived[r.data]; ok {
			file = d.source
		}
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			return fmt.Errorf("data directory %s: missing %s (needed by run %s)", dir, file, r.name)
		}
	}
	return nil
}

// dataPaths returns the path of every data set the runs read, writing the
// derived ones (plain text) to tmp once.
func dataPaths(dir, tmp string, runs []run) (map[string]string, error) {
	paths := map[string]string{}
	for _, r := range runs {
		if _, done := paths[r.data]; done {
			continue
		}
		d, ok := derived[r.data]
		if !ok {
			paths[r.data] = filepath.Join(dir, r.data)
			continue
		}
		p := filepath.Join(tmp, r.data)
		if err := derive(filepath.Join(dir, d.source), p, d.line); err != nil {
			return nil, fmt.Errorf("deriving %s: %w", r.data, err)
		}
		paths[r.data] = p
	}
	return paths, nil
}

func derive(src, dst string, mapLine func([]byte) ([]byte, error)) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	err = mapLines(bzip2.NewReader(bufio.NewReaderSize(in, 1<<20)), out, mapLine)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return nil
}

func mapLines(r io.Reader, w io.Writer, mapLine func([]byte) ([]byte, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	bw := bufio.NewWriterSize(w, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		out, err := mapLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if out == nil {
			continue
		}
		bw.Write(out)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("no lines")
	}
	return bw.Flush()
}
