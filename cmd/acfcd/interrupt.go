package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/acfcd/acfcd"
)

// Interrupting `acfcd train`
//
// The first SIGINT or SIGTERM cancels the training context: the solvers
// poll it every few thousand coordinate steps (about a million non-zeros
// for the LASSO) and return the model reached so far. train then says on
// stderr that the model is not converged, writes MODEL only with
// --save-partial, and exits with status 1. Once the context is cancelled
// the two signals get their default action back, so a second one ends
// the process at once (MODEL is written atomically, so that is safe).
//
// Reading DATA cannot be cancelled: a signal while it is read ends the
// process right away (nothing has been written yet) with a message.

// exit is os.Exit; loadInterruptible calls it.
var exit = os.Exit

// loadInterruptible is acfcd.Load, ended by the cancellation of ctx
// (the signal context of train): the process exits with status 1 and a
// message on stderr.
func loadInterruptible(ctx context.Context, stderr io.Writer, path string, opt acfcd.Options) (*acfcd.Dataset, error) {
	var mu sync.Mutex
	loading := true
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			if loading {
				fmt.Fprintf(stderr, "acfcd: interrupted while reading %s: no model was trained or written\n", path)
				exit(1)
			}
		case <-finished:
		}
	}()
	d, err := acfcd.Load(path, opt)
	mu.Lock()
	loading = false
	mu.Unlock()
	close(finished)
	return d, err
}

// interrupted is train's answer to a cancelled run: an error that says the
// model is not converged, after saving it to modelPath if save is set
// (--save-partial).
func interrupted(stdout io.Writer, m *acfcd.Model, res *acfcd.Result, modelPath string, save bool) error {
	what := fmt.Sprintf("training interrupted after %d epochs (largest KKT violation %.3g, eps %g): the model is not converged", res.Epochs, res.Violation, res.Eps)
	if !save {
		return fmt.Errorf("%s and was not saved (--save-partial saves it)", what)
	}
	// The training context is done: a wait on a named pipe is ended by a
	// second signal, which now has its default action.
	if err := saveModel(context.Background(), stdout, m, modelPath); err != nil {
		return fmt.Errorf("%s; saving it (--save-partial) failed: %w", what, err)
	}
	return fmt.Errorf("%s; saved it to %s as --save-partial asks", what, modelPath)
}
