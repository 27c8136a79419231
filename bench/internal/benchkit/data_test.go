package benchkit

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestNews20Binary(t *testing.T) {
	var out bytes.Buffer
	in := "1 1:0.5 7:1\n10 2:1\n11 3:2\n20 4:1e-3\n"
	if err := News20Binary(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "+1 1:0.5 7:1\n+1 2:1\n-1 3:2\n-1 4:1e-3\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if err := News20Binary(strings.NewReader("21 1:1\n"), &out); err == nil {
		t.Error("no error for class 21")
	}
}

func TestMedian(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Error(m)
	}
	if m := Median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Error(m)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing")
	}
}
