package acfcd_test

import (
	"context"
	"fmt"
	"log"

	"github.com/acfcd/acfcd"
)

// FindC searches C as liblinear's -C: 5-fold cross-validation at C
// doubling from a small value to 1024, each C's training starting from
// the previous one's solution.
func ExampleFindC() {
	d := toyData()
	p := acfcd.Params{Problem: acfcd.HingeDual, Bias: 1} // -s 3 -B 1
	cs, err := acfcd.FindC(context.Background(), d, p, 5, acfcd.SearchOptions{})
	if err != nil {
		log.Fatal(err)
	}
	first, last := cs.Points[0], cs.Points[len(cs.Points)-1]
	fmt.Printf("%d values of C from %g to %g\n", len(cs.Points), first.C, last.C)
	fmt.Printf("Best C = %g  CV accuracy = %g%%\n", cs.BestC, cs.Accuracy)
	// Output:
	// 21 values of C from 0.0009765625 to 1024
	// Best C = 8  CV accuracy = 98%
}
