package dataio

import (
	"math"
	"strconv"
	"unsafe"
)

// Number parsing for the libsvm reader.
//
// scanFloat handles the common case, a plain decimal such as "1", "-0.25"
// or "3.5e-4", without strconv: it reads at most 19 significant digits into
// a uint64 mantissa m and a decimal exponent e, and when m < 2^53 and
// 10^|e| is exactly representable (|e| <= 22, or e <= 37 when enough
// trailing zeros fit into m) the value is float64(m) * 10^e or
// float64(m) / 10^-e: one correctly rounded IEEE operation on two exact
// operands (Clinger's fast path). Since strconv.ParseFloat is also
// correctly rounded, the results are bit-identical. Everything else (more
// significant digits, large exponents, hex floats, "inf", junk) is left
// to strconv.ParseFloat on the whole token.

// pow10tab holds the powers of ten that are exact in float64.
var pow10tab = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// ipow10tab holds 10^0 .. 10^15 as integers.
var ipow10tab = [...]uint64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000,
	10000000000000, 100000000000000, 1000000000000000,
}

// scanFloat parses a plain decimal number starting at s[i]. It returns the
// value and the index just past the number. ok is false when the text at
// s[i] is not a plain decimal that the fast path can convert exactly; the
// caller must then hand the whole token to strconv. When ok is true the
// caller must still check that s[j] ends the token.
func scanFloat(s []byte, i int) (f float64, j int, ok bool) {
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var m uint64
	nd := 0     // significant digits stored in m (leading zeros excluded)
	e := 0      // decimal exponent to apply to m
	digits := 0 // mantissa digits seen, zeros included
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		digits++
		if nd < 19 {
			m = m*10 + uint64(c)
			if m != 0 {
				nd++
			}
		} else {
			if c != 0 {
				return 0, i, false // would be truncated: not exact
			}
			e++
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			digits++
			if nd < 19 {
				m = m*10 + uint64(c)
				if m != 0 {
					nd++
				}
				e--
			} else if c != 0 {
				return 0, i, false
			}
		}
	}
	if digits == 0 {
		return 0, i, false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		st := i
		x := 0
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			if x < 1e6 {
				x = x*10 + int(c)
			}
		}
		if i == st {
			return 0, i, false
		}
		if eneg {
			x = -x
		}
		e += x
	}
	if m == 0 {
		if neg {
			return math.Copysign(0, -1), i, true
		}
		return 0, i, true
	}
	if m>>53 != 0 {
		return 0, i, false
	}
	switch {
	case e == 0:
		f = float64(m)
	case e > 0 && e <= 22:
		f = float64(m) * pow10tab[e]
	case e < 0 && e >= -22:
		f = float64(m) / pow10tab[-e]
	case e > 22 && e <= 22+15:
		p := ipow10tab[e-22]
		if m > (1<<53)/p {
			return 0, i, false
		}
		f = float64(m*p) * 1e22
	default:
		return 0, i, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}

// parseFloatSlow converts a whole token with strconv.ParseFloat without
// copying it. strconv does not keep the string (its errors copy it).
func parseFloatSlow(tok []byte) (float64, error) {
	if len(tok) == 0 {
		return strconv.ParseFloat("", 64)
	}
	return strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
}

// parseFloat parses a whole token exactly as strconv.ParseFloat(s, 64)
// does, using the fast path when it can.
func parseFloat(s []byte) (float64, error) {
	if f, j, ok := scanFloat(s, 0); ok && j == len(s) {
		return f, nil
	}
	return parseFloatSlow(s)
}
