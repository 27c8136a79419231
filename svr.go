package acfcd

import (
	"context"
	"errors"

	"github.com/acfcd/acfcd/internal/procs"
)

// trainSVR trains -s 12 and 13.
func trainSVR(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	return nil, nil, errors.New("-s " + p.Problem.Flag() + ": not implemented yet")
}
