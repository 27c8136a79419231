//go:build purego

package ndjson

// With the purego tag simdjson-go (assembly) is left out and NDJSON always
// goes through the pure-Go scanner.

func simdAvailable() bool { return false }

type simdChunkParser struct{}

func (p *simdChunkParser) parse([]byte, *ndBuilder) bool { return false }
