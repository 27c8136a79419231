package solver

import (
	"math"
	"slices"
)

// Identical rows with opposite labels (-s 3, and -s 1: see pushDupsL2).
//
// If x_p = x_m, y_p = +1 and y_m = −1, then z_p = −z_m, and moving α_p and
// α_m up together leaves w = Zᵀα unchanged while f(α) = ½‖w‖² − Σα falls
// by twice the move: a direction of zero curvature along which f is
// linear. Dual CD follows it only by alternating single steps of about
// 2/Q_ii each, so such a pair climbs to C in about C·Q_ii/2 steps: on
// news20bin (10 groups, 23 rows of 15935 with raw counts: eight pairs, a
// group of 3+1 rows and one of 2+1) this is the whole of the stall at
// large C (without those rows acf+shrink converges after 19 epochs at
// C = 100 and 1000; with them it takes 229 epochs at C = 100 and hits the
// cap of 1000 at C = 1000). So after every batch the pairs are pushed up
// to the first bound, exactly: f decreases, w stays. (For -s 1 each group
// is solved as a whole, pushDupsL2: with it news20bin converges after 22
// and 18 epochs, without a Newton switch.)

// usePushDups can be turned off by measurements. dupsMaxRows bounds the
// search's buffer (16 bytes an example): above it (kdd scale, where the
// peak memory is meant to stay within 1.1× the data) there is no search.
var (
	usePushDups = true
	dupsMaxRows = 1 << 22
)

// dupGroups finds the groups of identical rows (the bias is the same for
// all, so only the features matter) with more than one label, and returns
// them as a flat list with offsets, or nil if there are none.
func (sh *shared) dupGroups() (rows []int32, off []int32) {
	type hr struct {
		h uint64
		i int32
	}
	hs := make([]hr, sh.n)
	for i := range sh.n {
		a, b := sh.rp[i], sh.rp[i+1]
		h := uint64(b-a) * 0x9e3779b97f4a7c15
		for k := a; k < b; k++ {
			var v uint64
			if sh.val32 == nil {
				v = math.Float64bits(sh.val[k])
			} else {
				v = math.Float64bits(float64(sh.val32[k]))
			}
			h = splitmix(h ^ uint64(sh.idx[k])<<32 ^ v)
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
		a, b := sh.rp[i], sh.rp[i+1]
		c, d := sh.rp[j], sh.rp[j+1]
		if b-a != d-c {
			return false
		}
		for k := int64(0); k < b-a; k++ {
			if sh.idx[a+k] != sh.idx[c+k] || sh.value(a+k) != sh.value(c+k) {
				return false
			}
		}
		return true
	}
	used := make(map[int32]bool)
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
			start := len(rows)
			rows = append(rows, hs[p].i)
			for q := p + 1; q < e; q++ {
				if !used[hs[q].i] && same(hs[p].i, hs[q].i) {
					used[hs[q].i] = true
					rows = append(rows, hs[q].i)
				}
			}
			// Copies that share their label have the same y in every
			// subproblem: nothing to push.
			mixed := false
			for _, i := range rows[start:] {
				mixed = mixed || sh.label[i] != sh.label[rows[start]]
			}
			if !mixed {
				rows = rows[:start]
			} else {
				off = append(off, int32(start))
			}
		}
		s = e
	}
	if len(off) == 0 {
		return nil, nil
	}
	return rows, append(off, int32(len(rows)))
}

// value returns the k-th stored value as float64.
func (sh *shared) value(k int64) float64 {
	if sh.val32 == nil {
		return sh.val[k]
	}
	return float64(sh.val32[k])
}

// pushDups minimises f exactly along the zero-curvature (-s 3) or
// low-curvature (-s 1) directions of the groups, α_p and α_m up or down
// together for a positive p and a negative m, and returns the decrease of
// f. w does not change.
func (wk *worker) pushDups() float64 {
	if wk.kind == l2svm {
		return wk.pushDupsL2()
	}
	var gain float64
	off := wk.dupOff
	for g := 0; g+1 < len(off); g++ {
		grp := wk.dupRows[off[g]:off[g+1]]
		p, m := 0, 0
		for {
			for p < len(grp) && (wk.y[grp[p]] < 0 || wk.alpha[grp[p]] >= wk.ub[1]) {
				p++
			}
			for m < len(grp) && (wk.y[grp[m]] > 0 || wk.alpha[grp[m]] >= wk.ub[0]) {
				m++
			}
			if p == len(grp) || m == len(grp) {
				break
			}
			ip, im := grp[p], grp[m]
			step := min(wk.ub[1]-wk.alpha[ip], wk.ub[0]-wk.alpha[im])
			wk.alpha[ip] += step
			wk.alpha[im] += step
			if wk.ub[1]-wk.alpha[ip] <= step*1e-15 {
				wk.alpha[ip] = wk.ub[1]
			}
			if wk.ub[0]-wk.alpha[im] <= step*1e-15 {
				wk.alpha[im] = wk.ub[0]
			}
			gain += 2 * step
		}
	}
	return gain
}

// pushDupsL2 is pushDups for the squared hinge (-s 1), whose dual adds
// ½ D_i α_i² (D_i = 1/(2C_i)) and has no upper bound: along α_p, α_m + δ,
// f changes by D_p(α_p δ + δ²/2) + D_m(α_m δ + δ²/2) − 2δ, a curvature of
// D_p + D_m = 1/C against Q_ii for a single step, so at large C dual CD
// crawls along it as in -s 3. The same holds for the moves within a
// group that keep its net Σ y_i α_i: with two positives and a negative,
// shifting α from one positive to the other leaves w as it is and has
// curvature 2D_p. So each group is solved exactly for its net
// s = A − B, A = Σ_P α_i and B = Σ_M α_i over its positives P and
// negatives M: f is D_p A²/(2|P|) − A + D_m B²/(2|M|) − B at equal α
// within P and within M, minimised at
// B = (2 − D_p s/|P|)/(D_p/|P| + D_m/|M|), kept at B ≥ max(0, −s).
// (Pairing the k-th positive with the k-th negative instead left
// news20bin's groups of 3+1 and 2+1 rows crawling: a violation of about 1
// on 3187 active rows for 20 epochs at -c 100 until the Newton switch.)
func (wk *worker) pushDupsL2() float64 {
	var gain float64
	dp, dm := wk.diag[1], wk.diag[0]
	off := wk.dupOff
	for g := 0; g+1 < len(off); g++ {
		grp := wk.dupRows[off[g]:off[g+1]]
		var np, nm int
		var a, b, f0 float64
		for _, i := range grp {
			ai := wk.alpha[i]
			if wk.y[i] > 0 {
				np++
				a += ai
				f0 += dp*ai*ai/2 - ai
			} else {
				nm++
				b += ai
				f0 += dm*ai*ai/2 - ai
			}
		}
		if np == 0 || nm == 0 {
			continue
		}
		fp, fm := float64(np), float64(nm)
		s := a - b
		bn := max((2-dp*s/fp)/(dp/fp+dm/fm), max(0, -s))
		ap, am := (bn+s)/fp, bn/fm
		ap = max(ap, 0)
		f1 := fp*(dp*ap*ap/2-ap) + fm*(dm*am*am/2-am)
		if dg := f0 - f1; dg > 0 {
			for _, i := range grp {
				if wk.y[i] > 0 {
					wk.alpha[i] = ap
				} else {
					wk.alpha[i] = am
				}
			}
			gain += dg
		}
	}
	return gain
}

func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
