//go:build !unix

package benchkit

// ProcessCPU is not measured on this platform.
func ProcessCPU() float64 { return 0 }
