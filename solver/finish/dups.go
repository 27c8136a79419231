package finish

import (
	"github.com/acfcd/acfcd/solver/dcd"
)

// Identical rows with opposite labels (-s 3, and -s 1: see pushL2).
//
// If x_p = x_m, y_p = +1 and y_m = −1, then z_p = −z_m, and moving α_p and
// α_m up together leaves w = Zᵀα unchanged while f(α) = ½‖w‖² − Σα falls
// by twice the move: a direction of zero curvature along which f is
// linear. Dual CD follows it only by alternating single steps of about
// 2/Q_ii each, so such a pair climbs to C in about C·Q_ii/2 steps, at
// large C the whole of a stall (news20 as 1–10 vs 11–20 has 23 such
// rows: docs/tuning.md). So after every batch the pairs are pushed up to
// the first bound, exactly: f decreases, w stays.

// Dups are the groups of identical rows with more than one label, as a
// flat list of rows with offsets.
type Dups struct {
	rows, off []int32
}

// FindDups finds the groups of identical rows with more than one label
// (rows.Identical). It returns nil if there are none.
func FindDups(sh *dcd.Data) *Dups {
	var rows, off []int32
	sh.Identical(func(group []int32) {
		// Copies that share their label have the same y in every
		// subproblem: nothing to push.
		for _, i := range group {
			if sh.Label[i] != sh.Label[group[0]] {
				off = append(off, int32(len(rows)))
				rows = append(rows, group...)
				return
			}
		}
	})
	if len(off) == 0 {
		return nil
	}
	return &Dups{rows: rows, off: append(off, int32(len(rows)))}
}

// Push minimises f of p exactly along the zero-curvature (-s 3) or
// low-curvature (-s 1) directions of the groups, α_p and α_m up or down
// together for a positive p and a negative m, and returns the decrease of
// f. w does not change. It runs after every batch.
func (dd *Dups) Push(dp *dcd.Problem) float64 {
	if dp.Loss == dcd.L2SVM {
		return dd.pushL2(dp)
	}
	var gain float64
	off := dd.off
	for g := 0; g+1 < len(off); g++ {
		grp := dd.rows[off[g]:off[g+1]]
		p, m := 0, 0
		for {
			for p < len(grp) && (dp.Y[grp[p]] < 0 || dp.Alpha[grp[p]] >= dp.UB[1]) {
				p++
			}
			for m < len(grp) && (dp.Y[grp[m]] > 0 || dp.Alpha[grp[m]] >= dp.UB[0]) {
				m++
			}
			if p == len(grp) || m == len(grp) {
				break
			}
			ip, im := grp[p], grp[m]
			step := min(dp.UB[1]-dp.Alpha[ip], dp.UB[0]-dp.Alpha[im])
			dp.Alpha[ip] += step
			dp.Alpha[im] += step
			if dp.UB[1]-dp.Alpha[ip] <= step*1e-15 {
				dp.Alpha[ip] = dp.UB[1]
			}
			if dp.UB[0]-dp.Alpha[im] <= step*1e-15 {
				dp.Alpha[im] = dp.UB[0]
			}
			gain += 2 * step
		}
	}
	return gain
}

// pushL2 is Push for the squared hinge (-s 1), whose dual adds
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
// (Pairing the k-th positive with the k-th negative instead leaves groups
// of 3+1 rows crawling.)
func (dd *Dups) pushL2(p *dcd.Problem) float64 {
	var gain float64
	dp, dm := p.Diag[1], p.Diag[0]
	off := dd.off
	for g := 0; g+1 < len(off); g++ {
		grp := dd.rows[off[g]:off[g+1]]
		var np, nm int
		var a, b, f0 float64
		for _, i := range grp {
			ai := p.Alpha[i]
			if p.Y[i] > 0 {
				np++
				a += ai
				f0 += float64(dp*ai*ai/2) - ai
			} else {
				nm++
				b += ai
				f0 += float64(dm*ai*ai/2) - ai
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
		f1 := float64(fp*(float64(dp*ap*ap/2)-ap)) + float64(fm*(float64(dm*am*am/2)-am))
		if dg := f0 - f1; dg > 0 {
			for _, i := range grp {
				if p.Y[i] > 0 {
					p.Alpha[i] = ap
				} else {
					p.Alpha[i] = am
				}
			}
			gain += dg
		}
	}
	return gain
}
