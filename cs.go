package acfcd

import (
	"context"
	"errors"

	"github.com/acfcd/acfcd/internal/procs"
)

// trainCS trains -s 4.
func trainCS(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	return nil, nil, errors.New("-s " + p.Problem.Flag() + ": not implemented yet")
}
