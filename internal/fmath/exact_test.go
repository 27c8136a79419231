package fmath

import (
	"math"
	"math/big"
	"sync"
)

// The exact references: big.Float at 256 bits, from series that need
// nothing of package math but Frexp and Round.

const prec = 256

func bf(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }

// atanhBig is atanh(s) = Σ s^(2k+1)/(2k+1) for |s| ≤ 1/3.
func atanhBig(s *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(prec).Set(s)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	pow := new(big.Float).SetPrec(prec).Set(s)
	term := new(big.Float).SetPrec(prec)
	for k := int64(1); ; k++ {
		pow.Mul(pow, s2)
		term.Quo(pow, new(big.Float).SetPrec(prec).SetInt64(2*k+1))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -prec-8 {
			return sum
		}
		sum.Add(sum, term)
	}
}

var ln2Big = sync.OnceValue(func() *big.Float {
	t := atanhBig(new(big.Float).SetPrec(prec).Quo(bf(1), bf(3)))
	return t.Mul(t, bf(2))
})

var ln10Big = sync.OnceValue(func() *big.Float { return logBig(bf(10)) })

// logBig is the natural logarithm of x > 0.
func logBig(x *big.Float) *big.Float {
	if x.Sign() == 0 {
		return new(big.Float).SetInf(true)
	}
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m) // x = m·2^e, m in [0.5, 1)
	if m.Cmp(bf(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	num := new(big.Float).SetPrec(prec).Sub(m, bf(1))
	den := new(big.Float).SetPrec(prec).Add(m, bf(1))
	t := atanhBig(num.Quo(num, den))
	t.Mul(t, bf(2))
	k := new(big.Float).SetPrec(prec).SetInt64(int64(e))
	return t.Add(t, k.Mul(k, ln2Big()))
}

func exactLog(x float64) *big.Float { return logBig(bf(x)) }

func exactLog10(x float64) *big.Float {
	l := logBig(bf(x))
	return l.Quo(l, ln10Big())
}

func exactLog1p(x float64) *big.Float {
	if -0.5 < x && x < 1 { // log(1+x) = 2·atanh(x/(2+x)), no cancellation
		s := bf(x)
		s.Quo(s, new(big.Float).SetPrec(prec).Add(bf(2), bf(x)))
		s = atanhBig(s)
		return s.Mul(s, bf(2))
	}
	u := new(big.Float).SetPrec(2200).SetFloat64(x) // 1+x exactly
	u.Add(u, big.NewFloat(1))
	return logBig(u.SetPrec(prec))
}

func exactExp(x float64) *big.Float {
	k := math.Round(x / math.Ln2)
	r := bf(k)
	r.Mul(r, ln2Big())
	r.Sub(bf(x), r)
	sum, term := bf(1), bf(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -prec-8 {
			break
		}
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

// ulpErr is |got − want| in ulps of want (of the float64 nearest to it),
// 0 when got is the infinity that want rounds to.
func ulpErr(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	if math.IsInf(got, 0) || math.IsInf(w, 0) {
		if got == w {
			return 0
		}
		return math.Inf(1)
	}
	if want.Sign() == 0 {
		if got == 0 {
			return 0
		}
		return math.Inf(1)
	}
	e := want.MantExp(nil) - 53 // want in [2^(e+52), 2^(e+53))
	e = max(e, -1074)
	d := new(big.Float).SetPrec(prec).Sub(bf(got), want)
	d.Abs(d)
	f, _ := d.SetMantExp(d, -e).Float64()
	return f
}
