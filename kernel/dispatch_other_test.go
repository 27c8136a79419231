//go:build purego || !(amd64 || arm64)

package kernel

// codeTable is empty: generic is the only implementation.
func codeTable(*tableInput) map[string]map[string]func() []float64 { return nil }
