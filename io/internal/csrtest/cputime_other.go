//go:build !unix

package csrtest

// CPUSeconds is 0 where the process's CPU time is not read.
func CPUSeconds() float64 { return 0 }
