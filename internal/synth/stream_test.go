package synth

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestRankIndex: the rank shuffle is a permutation of [D, F) that keeps
// powers-of-two bands, and rank inverts it.
func TestRankIndex(t *testing.T) {
	for _, features := range []int{16, 17, 5000, 29_890_095} {
		p := Presets["url"]
		p.Features, p.NNZ = features, 2
		m := NewModel(p, 5)
		seen := map[int32]bool{}
		for k := uint64(0); k < m.sparse; k++ {
			if m.sparse > 100_000 && k > 5000 && k%997 != 0 && k != m.sparse-1 {
				continue
			}
			j := m.index(k)
			if j < int32(m.numeric) || int(j) >= features || seen[j] {
				t.Fatalf("features %d: rank %d → index %d (out of range or repeated)", features, k, j)
			}
			seen[j] = true
			if x := uint64(j) - uint64(m.numeric); x != 0 && (x < 1<<(bits.Len64(k)-1) || x >= 1<<bits.Len64(k)) {
				t.Fatalf("features %d: rank %d → index %d left its band", features, k, j)
			}
			if r := m.rank(j); r != k {
				t.Fatalf("features %d: rank(index(%d)) = %d", features, k, r)
			}
		}
	}
}

// TestHash3: hash3 is the two splitmix64 steps it was written out as.
func TestHash3(t *testing.T) {
	old := func(a, b, c uint64) uint64 {
		x := a ^ 0x9e3779b97f4a7c15
		for _, y := range [...]uint64{b, c} {
			x ^= y
			x += 0x9e3779b97f4a7c15
			x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
			x = (x ^ x>>27) * 0x94d049bb133111eb
			x ^= x >> 31
		}
		return x
	}
	r := rand.New(rand.NewPCG(5, 6))
	for k := range uint64(200000) {
		a, b, c := r.Uint64(), k, r.Uint64N(8)
		if k%2 == 1 {
			b = r.Uint64()
		}
		if got, want := hash3(a, b, c), old(a, b, c); got != want {
			t.Fatalf("hash3(%#x, %#x, %#x) = %#x, want %#x", a, b, c, got, want)
		}
	}
}
