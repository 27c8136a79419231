package solver

import (
	"fmt"
	"runtime/debug"

	dataio "github.com/acfcd/acfcd/io"
)

// Memory faults in a mapped dataset.
//
// A binary cache is used in place from its memory mapping (io/mapped.go),
// so the solvers read mapped pages throughout training. If another program
// truncates the file meanwhile, a read past its new end raises SIGBUS,
// which would kill the process. Every goroutine of Train that reads the
// data therefore runs with debug.SetPanicOnFault (a per-goroutine setting,
// restored on return) and turns the recovered fault into an error naming
// the file; the model of that call is lost, nothing else is.

// guardFaults enables panics on memory faults for the calling goroutine
// and returns the function that restores the previous setting.
func guardFaults() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// recoverFault, deferred after guardFaults, turns a memory-fault panic into
// *err and lets every other panic through.
func recoverFault(d *dataio.Dataset, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(interface{ Addr() uintptr }); !ok {
		panic(r)
	}
	*err = faultError(d)
}

func faultError(d *dataio.Dataset) error {
	src := "the training data"
	if d != nil && d.Source != "" {
		src = d.Source
	}
	return fmt.Errorf("%s: memory fault while training: the file changed while it was being read (was it truncated or rewritten in place?)", src)
}
