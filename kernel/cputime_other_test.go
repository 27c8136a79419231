//go:build !linux

package kernel

// threadCPU is not implemented here; the benchmarks then omit cpu-nnz/s.
func threadCPU() (float64, bool) { return 0, false }
