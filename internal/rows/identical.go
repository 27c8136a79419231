package rows

import (
	"math"
	"slices"

	"github.com/acfcd/acfcd/internal/mix"
)

// Identical calls group with every set of two or more identical rows of r
// (the bias is the same for all, so only the features matter), each in
// increasing row order: a hash of each row, then exact comparison. The
// sets come in the order of their hashes, the same on every run. group
// may keep the slice only until it returns.
func (r *Rows) Identical(group func(rows []int32)) {
	type hr struct {
		h uint64
		i int32
	}
	hs := make([]hr, r.N)
	for i := range r.N {
		a, b := r.RP[i], r.RP[i+1]
		h := uint64(b-a) * mix.Gamma
		for k := a; k < b; k++ {
			h = mix.Splitmix64(h ^ uint64(r.Idx[k])<<32 ^ math.Float64bits(r.Value(k)))
		}
		hs[i] = hr{h, int32(i)}
	}
	slices.SortFunc(hs, func(x, y hr) int {
		if x.h != y.h {
			if x.h < y.h {
				return -1
			}
			return 1
		}
		return int(x.i - y.i)
	})
	same := func(i, j int32) bool {
		a, b := r.RP[i], r.RP[i+1]
		c, d := r.RP[j], r.RP[j+1]
		if b-a != d-c {
			return false
		}
		for k := int64(0); k < b-a; k++ {
			if r.Idx[a+k] != r.Idx[c+k] || r.Value(a+k) != r.Value(c+k) {
				return false
			}
		}
		return true
	}
	used := make(map[int32]bool)
	var set []int32
	for s := 0; s < len(hs); {
		e := s + 1
		for e < len(hs) && hs[e].h == hs[s].h {
			e++
		}
		// Within a run of equal hashes, group by exact equality.
		for p := s; p < e; p++ {
			if used[hs[p].i] {
				continue
			}
			set = append(set[:0], hs[p].i)
			for q := p + 1; q < e; q++ {
				if !used[hs[q].i] && same(hs[p].i, hs[q].i) {
					used[hs[q].i] = true
					set = append(set, hs[q].i)
				}
			}
			if len(set) > 1 {
				group(set)
			}
		}
		s = e
	}
}
