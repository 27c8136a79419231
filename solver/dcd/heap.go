package dcd

// gradHeap is an indexed binary heap of examples ordered by their cached
// gradients key[i]: the smallest first, or with max the largest. Ties go
// to the lower index, so the order never depends on the history.
type gradHeap struct {
	h   []int32 // the heap
	pos []int32 // pos[i]: i's place in h, or −1 when absent
	key []float64
	max bool
}

func newGradHeap(n int, key []float64, max bool) *gradHeap {
	g := &gradHeap{h: make([]int32, 0, n), pos: make([]int32, n), key: key, max: max}
	for i := range g.pos {
		g.pos[i] = -1
	}
	return g
}

// before reports whether a goes above b.
func (g *gradHeap) before(a, b int32) bool {
	ka, kb := g.key[a], g.key[b]
	if ka != kb {
		return ka < kb != g.max
	}
	return a < b
}

// top returns the first example other than i, or −1.
func (g *gradHeap) top(i int32) int32 {
	h := g.h
	switch {
	case len(h) == 0:
		return -1
	case h[0] != i:
		return h[0]
	case len(h) == 1:
		return -1
	case len(h) == 2 || g.before(h[1], h[2]):
		return h[1]
	}
	return h[2]
}

// set puts i in the heap (in) or takes it out, at its current key.
func (g *gradHeap) set(i int32, in bool) {
	k := g.pos[i]
	switch {
	case in && k >= 0:
		if !g.up(int(k)) {
			g.down(int(k))
		}
	case in:
		g.h = append(g.h, i)
		g.pos[i] = int32(len(g.h) - 1)
		g.up(len(g.h) - 1)
	case k >= 0:
		last := len(g.h) - 1
		g.pos[i] = -1
		if int(k) != last {
			m := g.h[last]
			g.h[k], g.pos[m] = m, k
			g.h = g.h[:last]
			if !g.up(int(k)) {
				g.down(int(k))
			}
		} else {
			g.h = g.h[:last]
		}
	}
}

// rebuild makes the heap hold the examples with in(i), at their keys.
func (g *gradHeap) rebuild(in func(i int) bool) {
	g.h = g.h[:0]
	for i := range g.pos {
		g.pos[i] = -1
		if in(i) {
			g.pos[i] = int32(len(g.h))
			g.h = append(g.h, int32(i))
		}
	}
	for k := len(g.h)/2 - 1; k >= 0; k-- {
		g.down(k)
	}
}

func (g *gradHeap) up(k int) bool {
	h := g.h
	i := h[k]
	k0 := k
	for k > 0 {
		p := (k - 1) / 2
		if !g.before(i, h[p]) {
			break
		}
		h[k] = h[p]
		g.pos[h[k]] = int32(k)
		k = p
	}
	h[k] = i
	g.pos[i] = int32(k)
	return k != k0
}

func (g *gradHeap) down(k int) {
	h := g.h
	n := len(h)
	i := h[k]
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && g.before(h[c+1], h[c]) {
			c++
		}
		if !g.before(h[c], i) {
			break
		}
		h[k] = h[c]
		g.pos[h[k]] = int32(k)
		k = c
	}
	h[k] = i
	g.pos[i] = int32(k)
}
