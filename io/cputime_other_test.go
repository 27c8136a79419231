//go:build !unix

package dataio

func cpuTime() float64 { return 0 }
