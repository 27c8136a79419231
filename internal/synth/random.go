package synth

import (
	"math"

	"github.com/acfcd/acfcd/internal/mix"
)

// hash3 hashes its arguments into 64 well-mixed bits: two splitmix64
// steps, keyed by b and then by c.
func hash3(a, b, c uint64) uint64 {
	return mix.Splitmix64(mix.Splitmix64(a^mix.Gamma^b) ^ c)
}

// hashNormal turns 64 random bits into a standard normal (Box–Muller).
func hashNormal(h uint64) float64 {
	u1 := (float64(h>>40) + 0.5) / (1 << 24)
	u2 := float64(h&(1<<24-1)) / (1 << 24)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
