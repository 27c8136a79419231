package dataio

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkFloat requires parseFloat(s) to behave exactly like
// strconv.ParseFloat(s, 64): same bits, and an error exactly when strconv
// gives one.
func checkFloat(t testing.TB, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := parseFloat([]byte(s))
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("parseFloat(%q): error %v, strconv error %v", s, gerr, werr)
	}
	if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("parseFloat(%q) = %v (%#x), strconv = %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestParseFloatTricky(t *testing.T) {
	cases := []string{
		"0", "-0", "+0", "0.0", "-0.0", "00", "0e0", "-0e-999", "0e99999999999",
		"1", "+1", "-1", "1.", "-1.", ".5", "-.5", "+.5", "5.", ".", "-", "+", "", "e5", ".e5",
		"1e", "1e+", "1e-", "1E5", "1e+05", "1.5e-3", "-1e0", "1.0", "+1.000",
		"1e22", "1e23", "9007199254740991", "9007199254740992", "9007199254740993",
		"9007199254740991e22", "9007199254740991e-22", "123456789e15", "1e37", "1e38",
		"900719925474099e22", "90071992547409e23", "9e37", "1e-22", "1e-23",
		"0.1", "0.2", "0.3", "0.30000000000000004", "0.1000000000000000055511151231257827",
		"1234567890123456789", "12345678901234567890", "1234567890123456789012345",
		"0.0000000000000000000000000001", "100000000000000000000000000000",
		"1.0000000000000000000000000000", "1000000000000000000000000000001",
		"0.000000000000000000000000000000000000000000001234",
		"1e-320", "4.9e-324", "5e-324", "2e-324", "2.4703282292062327e-324",
		"2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
		"1.7976931348623159e308", "1e308", "1e309", "-1e309", "1e400", "1e-400",
		"inf", "-Inf", "+INF", "infinity", "nan", "NaN", "0x1p-2", "0x1.8p1", "0X10",
		"1_000", "0x_1p0", "1e1_0", "1..2", "1.2.3", "1e5e5", "--1", "+-1", "1 ", " 1",
		"1:2", "3#", "١", "1e0000000000000000000000000001", "1e-0000000000000000000000001",
		"4503599627370497.5", "4503599627370496.5", "9007199254740993.0000000000001",
		"0.9999999999999999999", "99999999999999999999e-20", "1797693134862315708145274237317043567981e269",
	}
	for _, s := range cases {
		checkFloat(t, s)
	}
}

// randDecimal writes a random decimal string aimed at the fast path's
// edges: digit counts around 15..20, exponents around ±22, leading and
// trailing zeros.
func randDecimal(r *rand.Rand, b *strings.Builder) {
	b.Reset()
	switch r.IntN(4) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	digits := func(n int) {
		for i := 0; i < n; i++ {
			switch r.IntN(6) {
			case 0:
				b.WriteByte('0')
			case 1:
				b.WriteByte('9')
			default:
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
	}
	lead := r.IntN(4)
	for i := 0; i < lead; i++ {
		b.WriteByte('0')
	}
	digits(r.IntN(22))
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		if r.IntN(3) == 0 {
			for i := r.IntN(25); i > 0; i-- {
				b.WriteByte('0')
			}
		}
		digits(r.IntN(22))
	}
	if r.IntN(2) == 0 {
		b.WriteByte("eE"[r.IntN(2)])
		switch r.IntN(3) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(r.IntN(45)))
		if r.IntN(50) == 0 {
			b.WriteString(strconv.Itoa(r.IntN(1000)))
		}
	}
}

func TestParseFloatRandom(t *testing.T) {
	n := 3_000_000
	if testing.Short() {
		n = 200_000
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	formats := []byte{'e', 'f', 'g'}
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			randDecimal(r, &b)
			checkFloat(t, b.String())
		case 1: // any float64, printed in many ways
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			checkFloat(t, strconv.FormatFloat(f, formats[r.IntN(3)], r.IntN(20)-1, 64))
		case 2: // short decimals like those in data files, and small numbers
			f := float64(r.IntN(2_000_000)-1_000_000) * math.Pow(10, float64(r.IntN(50)-25))
			checkFloat(t, strconv.FormatFloat(f, formats[r.IntN(3)], r.IntN(12)-1, 64))
		}
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1", "-0", ".5", "5.", "1e-320", "0.30000000000000004", "1e23", "+1.5E+7", "inf", "0x1p3", "12345678901234567890e-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFloat(t, s)
		// scanFloat on a prefix must agree with strconv on that prefix.
		if v, j, ok := scanFloat([]byte(s), 0); ok {
			want, err := strconv.ParseFloat(s[:j], 64)
			if err != nil || math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("scanFloat(%q) = %v up to %d; strconv(%q) = %v, %v", s, v, j, s[:j], want, err)
			}
		}
	})
}
