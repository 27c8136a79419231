package acfcd

import (
	"context"
	"errors"

	"github.com/acfcd/acfcd/internal/procs"
)

// trainOneClass trains -s 21.
func trainOneClass(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	return nil, nil, errors.New("-s " + p.Problem.Flag() + ": not implemented yet")
}
