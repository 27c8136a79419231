// Package compsum holds Neumaier's compensated sum, shared by the ACF
// preference sums (acf) and the benchmark harnesses' objectives.
package compsum

import "math"

// Sum is Neumaier's compensated sum: Kahan's, also exact when a term is
// larger than the running sum. The zero value is an empty sum.
type Sum struct{ s, c float64 }

// Add adds v.
func (n *Sum) Add(v float64) {
	// Round v: inlined, a product passed in would otherwise fuse with the
	// sums below, each its own way, and the compensation would be wrong.
	v = float64(v)
	t := n.s + v
	if math.Abs(n.s) >= math.Abs(v) {
		n.c += (n.s - t) + v
	} else {
		n.c += (v - t) + n.s
	}
	n.s = t
}

// Value is the sum so far.
func (n *Sum) Value() float64 { return n.s + n.c }
