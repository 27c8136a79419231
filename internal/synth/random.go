package synth

import "math"

// hash3 hashes its arguments into 64 well-mixed bits (splitmix64 steps).
func hash3(a, b, c uint64) uint64 {
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

// hashNormal turns 64 random bits into a standard normal (Box–Muller).
func hashNormal(h uint64) float64 {
	u1 := (float64(h>>40) + 0.5) / (1 << 24)
	u2 := float64(h&(1<<24-1)) / (1 << 24)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
