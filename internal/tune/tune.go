// Package tune carries tuning constants into a training through its
// context. Each family's constants are a struct beside its code (the
// driver's solver.Tuning, dual.Tuning, lasso.Tuning, …) and not part of
// acfcd's API; the tests and the benchmark harnesses that measure them
// attach a modified copy to the context they train under, and each
// family reads its own at the start of its Train:
//
//	t := lasso.DefaultTuning()
//	t.LassoWSMin = 50
//	m, res, err := acfcd.Train(tune.With(ctx, &t), d, p)
package tune

import "context"

// key is the context key of a *T: one type, one key.
type key[T any] struct{}

// With returns ctx carrying t; trainings under it use *t instead of T's
// defaults.
func With[T any](ctx context.Context, t *T) context.Context {
	return context.WithValue(ctx, key[T]{}, t)
}

// Get returns the *T that ctx carries, or a new one holding defaults().
func Get[T any](ctx context.Context, defaults func() T) *T {
	if t, ok := ctx.Value(key[T]{}).(*T); ok && t != nil {
		return t
	}
	t := defaults()
	return &t
}
