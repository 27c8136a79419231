//go:build purego || !(amd64 || arm64)

package kernel

// archImpls returns no implementation besides generic: either the purego
// tag asked for pure Go or there is no assembly for this architecture.
func archImpls() []*Impl { return nil }
