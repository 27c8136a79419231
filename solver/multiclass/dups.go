package multiclass

import (
	"slices"

	"github.com/acfcd/acfcd/internal/rows"
)

// Identical rows of different classes (-s 4).
//
// If x_i = x_j and y_i ≠ y_j, then moving t from α_i^{y_j} to α_i^{y_i}
// and from α_j^{y_i} to α_j^{y_j} leaves Σ_i α_i, hence W, unchanged,
// keeps every Σ_m α_i^m = 0, and lowers f = ½‖W‖² − Σ_i α_i^{y_i} by 2t:
// a direction of zero curvature, which block steps on one example at a
// time follow only in small alternating steps (news20, whose 709
// cross-posted rows with two or more labels hold -c 10 for a thousand
// epochs: docs/tuning.md). So after every batch each pair of a group is
// pushed exactly to the first bound along it, and along the other moves
// that keep W: i takes α_i^{y_i} up by t and moves t of its negative mass
// onto a class m ∉ {y_i, y_j} where α_j^m < 0, and j moves t of its
// negative mass from m onto y_i (f falls by t).

// dupChunk is the most rows of a group that exchange mass with one
// another; a larger group is dealt round-robin into chunks of mixed
// classes, so that a push costs O(dupChunk·K) per row at most.
const dupChunk = 16

// dupRounds caps the rounds over the pairs of a group in one push.
const dupRounds = 8

// dups are groups of identical rows (the bias is the same for all, so
// only the features matter) with more than one class, as a flat list of
// rows with offsets.
type dups struct {
	rows, off []int32
}

// findDups finds the groups of identical rows of r with more than one
// class (rows.Identical). It returns nil if there are none.
func findDups(r *rows.Rows, class []int32) *dups {
	dd := &dups{}
	r.Identical(func(group []int32) { dd.add(group, class) })
	if len(dd.off) == 0 {
		return nil
	}
	dd.off = append(dd.off, int32(len(dd.rows)))
	return dd
}

// add adds group (rows in increasing order) if its rows have more than
// one class, dealt into chunks of at most dupChunk rows sorted by class.
func (dd *dups) add(group []int32, class []int32) {
	mixed := false
	for _, i := range group {
		mixed = mixed || class[i] != class[group[0]]
	}
	if !mixed {
		return
	}
	slices.SortStableFunc(group, func(i, j int32) int { return int(class[i] - class[j]) })
	nch := (len(group) + dupChunk - 1) / dupChunk
	for c := range nch {
		start := len(dd.rows)
		for k := c; k < len(group); k += nch {
			dd.rows = append(dd.rows, group[k])
		}
		if len(dd.rows)-start > 1 {
			dd.off = append(dd.off, int32(start))
		} else {
			dd.rows = dd.rows[:start]
		}
	}
}

// Len returns the number of rows in the groups.
func (dd *dups) Len() int {
	if dd == nil {
		return 0
	}
	return len(dd.rows)
}

// push moves every pair of rows of different classes in each group along
// the moves that keep W (see above), each exactly to its first bound, and
// returns the decrease of f. A row whose α changed gets all its classes
// back (a move can take a shrunk class off its bound).
func (s *CS) push() float64 {
	dd := s.dups
	var gain float64
	for g := 0; g+1 < len(dd.off); g++ {
		rs := dd.rows[dd.off[g]:dd.off[g+1]]
		// A move of one pair can open moves to an earlier pair of three
		// or more rows: rounds until one moves nothing.
		for round := 0; round < dupRounds; round++ {
			var dg float64
			for p, i := range rs {
				for _, j := range rs[p+1:] {
					if s.class[i] == s.class[j] {
						continue
					}
					if g := s.pushPair(i, j); g > 0 {
						dg += g
						if s.nact != nil {
							s.nact[i], s.nact[j] = uint16(s.K), uint16(s.K)
						}
					}
				}
			}
			gain += dg
			if dg == 0 {
				break
			}
		}
	}
	return gain
}

// pushPair does the moves of rows i and j of different classes and
// returns the decrease of f.
func (s *CS) pushPair(i, j int32) float64 {
	K := s.K
	yi, yj := s.class[i], s.class[j]
	ai := s.Alpha[int(i)*K : int(i)*K+K]
	aj := s.Alpha[int(j)*K : int(j)*K+K]
	Ci, Cj := s.ub[yi], s.ub[yj]
	var gain float64
	if ri, rj := Ci-ai[yi], Cj-aj[yj]; ri > 0 && rj > 0 {
		t := min(ri, rj)
		ai[yi], aj[yj] = up(ai[yi], t, Ci), up(aj[yj], t, Cj)
		ai[yj] -= t
		aj[yi] -= t
		gain += 2 * t
	}
	return gain + exchange(ai, aj, yi, yj, Ci) + exchange(aj, ai, yj, yi, Cj)
}

// exchange raises a_i^{y_i} towards C_i, taking over row j's negative
// mass on the classes other than y_i and y_j, which j moves onto y_i;
// it returns the decrease of f.
func exchange(ai, aj []float64, yi, yj int32, Ci float64) float64 {
	var gain float64
	for m := range int32(len(ai)) {
		room := Ci - ai[yi]
		if !(room > 0) {
			break
		}
		if m == yi || m == yj || !(aj[m] < 0) {
			continue
		}
		t := min(room, -aj[m])
		ai[yi] = up(ai[yi], t, Ci)
		ai[m] -= t
		aj[yi] -= t
		aj[m] = up(aj[m], t, 0)
		gain += t
	}
	return gain
}

// up returns a + t, or the bound u when t takes a to it (t ≤ u − a).
func up(a, t, u float64) float64 {
	if t == u-a {
		return u
	}
	return min(a+t, u)
}
