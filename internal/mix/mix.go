// Package mix is the splitmix64 generator's mixing function: 64
// well-mixed bits from a counter, a seed or a key, for seeds and hashes
// that must not depend on the state of a random stream (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", 2014; the
// finaliser is Stafford's "Mix13").
//
// The generator with state s steps s += Gamma and outputs Finalize(s).
package mix

// Gamma is splitmix64's increment: 2^64 divided by the golden ratio,
// rounded to an odd number.
const Gamma = 0x9e3779b97f4a7c15

// Finalize is splitmix64's output function, a bijection of uint64 that
// spreads every input bit over the whole output.
func Finalize(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Splitmix64 is one full step of the generator from state z: the output
// Finalize(z + Gamma). For a keyed hash of x, use Splitmix64(x ^ key).
func Splitmix64(z uint64) uint64 { return Finalize(z + Gamma) }

// Seed derives the k-th seed (k = 0, 1, …) from seed: the (k+1)-th output
// of the generator started at state seed, Finalize(seed + (k+1)·Gamma).
// Seed(s, k) for k = 0, 1, … are independent seeds of one stream each
// (per class, per worker), whatever order they are derived in.
func Seed(seed, k uint64) uint64 { return Finalize(seed + (k+1)*Gamma) }
