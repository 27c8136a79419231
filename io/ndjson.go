package dataio

import "errors"

// parseNDJSON parses NDJSON examples held in data. (placeholder, being written)
func parseNDJSON(name string, data []byte, opt Options) (*Dataset, error) {
	return nil, errors.New("ndjson: not implemented yet")
}
