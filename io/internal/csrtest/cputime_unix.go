//go:build unix

package csrtest

import "syscall"

// CPUSeconds is the user+system CPU time of this process, to report
// throughput per CPU second on a shared machine.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
