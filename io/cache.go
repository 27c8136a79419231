package dataio

import (
	"io"
	"os"

	"github.com/acfcd/acfcd/io/internal/cache"
)

// openCache maps a binary cache file and verifies it (io/internal/cache).
// The dataset's slices point into the mapping until Close.
func openCache(path string, opt Options) (*Dataset, error) {
	m, release, err := cache.Open(path, readerOptions(opt))
	if err != nil {
		return nil, publicError(err)
	}
	d := datasetOf(m, path)
	d.release = release
	return d, nil
}

// IsCache reports whether the file at path is a binary cache (by its first
// bytes, as Load detects it).
func IsCache(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return cache.HasMagic(head[:n])
}

// WriteCache writes d to path as a binary cache (layout in
// io/internal/cache), atomically with internal/atomicfile: it writes a
// temporary file in the same directory (".BASE.tmp…"), fsyncs it, renames
// it over path and fsyncs the directory. On any error the temporary file is removed and an existing
// file at path is left untouched; path must be a regular file or not
// exist (a device or pipe is refused). d is checked
// first with the same invariants openCache enforces, so a cache that was
// written always loads. Zero rows are allowed. The new file gets the
// permissions of the file it replaces, or 0644.
func WriteCache(path string, d *Dataset) error {
	return cache.Write(path, matrixOf(d))
}
