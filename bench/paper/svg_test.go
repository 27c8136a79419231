package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestLogRange(t *testing.T) {
	for _, c := range []struct {
		a, b   float64
		lo, hi int
	}{
		{0.01, 1000, -2, 3},
		{0.015, 900, -2, 3},
		{1, 1, 0, 1},           // one value: a whole decade
		{0.002, 0.003, -3, -2}, // within one decade
		{1e-4, 1e-4, -4, -3},
		{3, 300, 0, 3},
	} {
		lo, hi := logRange(c.a, c.b)
		if lo != c.lo || hi != c.hi {
			t.Errorf("logRange(%g, %g) = %d, %d; want %d, %d", c.a, c.b, lo, hi, c.lo, c.hi)
		}
		if math.Pow(10, float64(lo)) > c.a*(1+1e-12) || math.Pow(10, float64(hi)) < c.b*(1-1e-12) {
			t.Errorf("logRange(%g, %g) = [1e%d, 1e%d] does not cover the data", c.a, c.b, lo, hi)
		}
	}
}

func TestLogTicks(t *testing.T) {
	major, minor := logTicks(-2, 3)
	if !slices.Equal(major, []float64{0.01, 0.1, 1, 10, 100, 1000}) {
		t.Errorf("decades: %v", major)
	}
	if len(minor) != 5*8 {
		t.Errorf("%d minor ticks, want 40", len(minor))
	}
	// Two decades or fewer: 2× and 5× are labelled too.
	major, _ = logTicks(0, 1)
	want := []float64{1, 2, 5, 10}
	if len(major) != len(want) {
		t.Fatalf("one decade: %v", major)
	}
	for i := range want {
		if math.Abs(major[i]-want[i]) > 1e-12 {
			t.Errorf("one decade: %v, want %v", major, want)
		}
	}
	// Many decades are thinned to at most 9 labels, always including the first.
	major, _ = logTicks(-10, 10)
	if len(major) > 9 || major[0] != 1e-10 {
		t.Errorf("20 decades: %d labels %v", len(major), major)
	}
	for i := 1; i < len(major); i++ {
		if !(major[i] > major[i-1]) {
			t.Errorf("labels not increasing: %v", major)
		}
	}
}

func TestTickLabel(t *testing.T) {
	for v, want := range map[float64]string{0.001: "0.001", 1: "1", 1000: "1000", 1e5: "100000", 1e-4: "1e-4", 1e6: "1e6", 2e-6: "2e-6", 1.5e7: "1.5e7", 0.5: "0.5"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%g) = %q, want %q", v, got, want)
		}
	}
}

// parseXML checks that b is well-formed XML with an svg root and returns
// how many elements of each name it has.
func parseXML(t *testing.T, b []byte) map[string]int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	count := map[string]int{}
	depth, root := 0, ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, b)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = e.Name.Local
				if e.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root namespace %q", e.Name.Space)
				}
			}
			depth++
			count[e.Name.Local]++
		case xml.EndElement:
			depth--
		}
	}
	if root != "svg" || depth != 0 {
		t.Fatalf("root %q, depth %d at the end", root, depth)
	}
	return count
}

func TestChartSVG(t *testing.T) {
	c := chart{Title: `a9a <svm> & "friends"`, XLabel: "C", YLabel: "seconds", Note: "x < y",
		Series: []series{
			{Name: "uniform eps=0.01", Color: "#1f77b4", Points: []point{{0.01, 0.5, markOK}, {1, 2, markCap}, {100, 60, markTimeout}}},
			{Name: "acf & co", Color: "#d62728", Dashed: true, Points: []point{{0.01, 0.1, markOK}, {1, math.NaN(), markOK}, {10, 0.3, markOK}, {100, 0.4, markOK}}},
			{Name: "one point", Color: "#000", Points: []point{{1, 1, markOK}}},
		}}
	b := c.SVG()
	n := parseXML(t, b)
	// Lines: the first series is one polyline; the second is broken by its
	// NaN into a single point and a two-point polyline; the third has one point.
	if n["polyline"] != 2 {
		t.Errorf("%d polylines, want 2", n["polyline"])
	}
	// Markers: 3 + 3 + 1 points, a legend marker per series, and the cap
	// and timeout keys.
	if got := n["circle"] + n["polygon"]; got != 7+3+2 {
		t.Errorf("%d markers, want 12", got)
	}
	if n["polygon"] != 2 {
		t.Errorf("%d timeout triangles, want 2 (one point, one legend key)", n["polygon"])
	}
	if !strings.Contains(string(b), "a9a &lt;svm&gt; &amp; &#34;friends&#34;") {
		t.Errorf("title not escaped:\n%s", b)
	}
	if !strings.Contains(string(b), `stroke-dasharray`) {
		t.Error("dashed series not dashed")
	}
	// Every coordinate lies in the plot area.
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "circle" {
			for _, a := range e.Attr {
				if a.Name.Local == "cx" || a.Name.Local == "cy" {
					if strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf") {
						t.Errorf("bad coordinate %s=%s", a.Name.Local, a.Value)
					}
				}
			}
		}
	}
}

func TestChartSVGEmpty(t *testing.T) {
	b := chart{Title: "nothing"}.SVG()
	parseXML(t, b)
	if !strings.Contains(string(b), "no data") {
		t.Error("an empty chart should say so")
	}
	// Only non-positive values: nothing can go on a log axis.
	b = chart{Series: []series{{Name: "z", Color: "#000", Points: []point{{0, 1, markOK}, {1, 0, markOK}}}}}.SVG()
	parseXML(t, b)
}
