package acfcd

import (
	"context"
	"errors"

	"github.com/acfcd/acfcd/internal/procs"
)

// trainL1 trains -s 5 and 6.
func trainL1(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	return nil, nil, errors.New("-s " + p.Problem.Flag() + ": not implemented yet")
}
