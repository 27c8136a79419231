package main

import (
	"fmt"
	"io"
	"reflect"

	"github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/l1"
	"github.com/acfcd/acfcd/solver/lasso"
	"github.com/acfcd/acfcd/solver/multiclass"
	"github.com/acfcd/acfcd/solver/primal"
)

// tunings are every family's measured constants (the fields of its
// Tuning), the count the corpus exists to bring down.
func tunings() []struct {
	pkg string
	v   any
} {
	return []struct {
		pkg string
		v   any
	}{
		{"solver", solver.DefaultTuning()}, {"dcd", dcd.DefaultTuning()}, {"dual", dual.DefaultTuning()},
		{"finish", finish.DefaultTuning()}, {"fit", fit.DefaultTuning()}, {"l1", l1.DefaultTuning()},
		{"lasso", lasso.DefaultTuning()}, {"multiclass", multiclass.DefaultTuning()}, {"primal", primal.DefaultTuning()},
	}
}

// writeConstants lists the constants per package and their total.
func writeConstants(w io.Writer) int {
	total := 0
	for _, t := range tunings() {
		v := reflect.ValueOf(t.v)
		fmt.Fprintf(w, "%-11s %2d:", t.pkg, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			fmt.Fprintf(w, " %s=%v", v.Type().Field(i).Name, v.Field(i).Interface())
		}
		fmt.Fprintln(w)
		total += v.NumField()
	}
	fmt.Fprintf(w, "total       %d\n", total)
	return total
}
