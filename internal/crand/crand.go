// Package crand is the C library's rand() as glibc implements it (the
// additive feedback generator of random(3), TYPE_3), so that acfcd's
// cross-validation folds are liblinear's: liblinear draws them with
// rand() from the unseeded state, srand(1).
package crand

// Rand is one rand() stream.
type Rand struct {
	r [34]int32 // the last 34 values of the recurrence, r[k%34]
	k int
}

// New returns the stream of srand(seed).
func New(seed uint32) *Rand {
	if seed == 0 {
		seed = 1 // glibc's srand(0) is srand(1)
	}
	g := &Rand{}
	var r [344]int32
	r[0] = int32(seed)
	for i := 1; i < 31; i++ {
		// 16807·r mod (2³¹ − 1) by Schrage's method, as glibc's srandom_r.
		hi, lo := int64(r[i-1])/127773, int64(r[i-1])%127773
		w := 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		r[i] = int32(w)
	}
	for i := 31; i < 34; i++ {
		r[i] = r[i-31]
	}
	for i := 34; i < 344; i++ {
		r[i] = int32(uint32(r[i-31]) + uint32(r[i-3]))
	}
	for i := 0; i < 34; i++ {
		g.r[(310+i)%34] = r[310+i]
	}
	g.k = 344
	return g
}

// Int returns the next rand(), in [0, 2³¹).
func (g *Rand) Int() int {
	v := int32(uint32(g.r[(g.k-31)%34]) + uint32(g.r[(g.k-3)%34]))
	g.r[g.k%34] = v
	g.k++
	return int(uint32(v) >> 1)
}

// Perm returns liblinear's permutation of 0..n−1: for each i in turn,
// swap i with i + rand() % (n − i).
func Perm(n int, seed uint32) []int {
	g := New(seed)
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := range p {
		j := i + g.Int()%(n-i)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
