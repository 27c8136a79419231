package dataio

import "github.com/acfcd/acfcd/io/internal/ndjson"

// parseNDJSON parses NDJSON examples held in data (the schema is in
// io/internal/ndjson).
func parseNDJSON(name string, data []byte, opt Options) (*Dataset, error) {
	m, err := ndjson.Parse(name, data, readerOptions(opt))
	if err != nil {
		return nil, publicError(err)
	}
	return datasetOf(m, name), nil
}
