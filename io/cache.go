package dataio

import "errors"

// isCache reports whether a file starting with prefix is an acfcd binary cache.
func isCache(prefix []byte) bool { return false }

// openCache maps a binary cache file. (placeholder, being written)
func openCache(path string, opt Options) (*Dataset, error) {
	return nil, errors.New("binary cache: not implemented yet")
}

// WriteCache writes d to path as a binary cache, atomically. (placeholder)
func WriteCache(path string, d *Dataset) error {
	return errors.New("binary cache: not implemented yet")
}
