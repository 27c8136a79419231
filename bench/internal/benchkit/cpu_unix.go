//go:build unix

package benchkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the user + system CPU time of this process so far, in
// seconds (all goroutines, the garbage collector included).
func ProcessCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
