package mix

import (
	"math/rand/v2"
	"testing"
)

// The formulas these functions replace, written out.
func refSplitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func refSeed(seed, k uint64) uint64 {
	z := seed + (k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func inputs() []uint64 {
	in := []uint64{0, 1, 2, 1<<63 - 1, 1 << 63, 1<<64 - 1, Gamma, -Gamma & (1<<64 - 1)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		in = append(in, r.Uint64(), r.Uint64N(1<<20))
	}
	return in
}

func TestSplitmix64(t *testing.T) {
	in := inputs()
	for k, z := range in {
		if got, want := Splitmix64(z), refSplitmix(z); got != want {
			t.Fatalf("Splitmix64(%#x) = %#x, want %#x", z, got, want)
		}
		for _, s := range []uint64{0, 7, in[(k+1)%len(in)]} {
			if got, want := Seed(s, z), refSeed(s, z); got != want {
				t.Fatalf("Seed(%#x, %#x) = %#x, want %#x", s, z, got, want)
			}
		}
	}
}

// TestGenerator: Splitmix64 and Seed are the outputs of one generator.
func TestGenerator(t *testing.T) {
	for _, seed := range []uint64{0, 1, 1234567, 1<<64 - 1} {
		s := seed
		for k := range uint64(100) {
			out := Splitmix64(s)
			s += Gamma
			if out != Finalize(s) || out != Seed(seed, k) {
				t.Fatalf("seed %d: output %d differs", seed, k)
			}
		}
	}
}
