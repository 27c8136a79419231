package synth

import (
	"math/bits"
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
