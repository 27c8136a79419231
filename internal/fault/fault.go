// Package fault turns memory faults in a mapped dataset into errors.
//
// A binary cache is used in place from its memory mapping (io/mapped.go),
// so training reads mapped pages throughout. If another program truncates
// the file meanwhile, a read past its new end raises SIGBUS, which would
// kill the process. Every goroutine that reads the data therefore runs
// with debug.SetPanicOnFault (a per-goroutine setting, restored on return)
// and turns the recovered fault into an error naming the file; the result
// of that call is lost, nothing else is.
package fault

import (
	"fmt"
	"runtime/debug"
)

// Guard enables panics on memory faults for the calling goroutine and
// returns the function that restores the previous setting.
func Guard() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// Recover, deferred after Guard, turns a memory-fault panic into *err,
// naming src (the data's file; "" for the training data), and lets every
// other panic through.
func Recover(src string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(interface{ Addr() uintptr }); !ok {
		panic(r)
	}
	*err = Error(src)
}

// Error is the error of a memory fault while reading src.
func Error(src string) error {
	if src == "" {
		src = "the training data"
	}
	return fmt.Errorf("%s: memory fault while training: the file changed while it was being read (was it truncated or rewritten in place?)", src)
}
