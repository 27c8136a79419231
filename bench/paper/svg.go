package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A hand-written SVG line chart with logarithmic axes (no dependencies).

// Point marks: how a run ended.
const (
	markOK      = "ok"
	markCap     = "cap"     // drawn hollow: not converged at the epoch cap
	markTimeout = "timeout" // drawn as a triangle at the time limit: a lower bound
)

type point struct {
	X, Y float64
	Mark string
}

type series struct {
	Name   string
	Color  string
	Dashed bool
	Points []point
}

type chart struct {
	Title  string
	XLabel string
	YLabel string
	Note   string // a line under the plot
	Series []series
}

// Layout in px.
const (
	svgW, svgH         = 720, 440
	padL, padR         = 78, 190
	padT, padB         = 40, 62
	plotW, plotH       = svgW - padL - padR, svgH - padT - padB
	tickLen            = 5
	markerR            = 3.5
	legendX, legendRow = svgW - padR + 16, 18
)

// logRange returns the decade exponents lo ≤ hi that cover [a, b]
// (a, b > 0); a range within one decade is widened to a whole decade.
func logRange(a, b float64) (int, int) {
	lo := int(math.Floor(math.Log10(a) + 1e-9))
	hi := int(math.Ceil(math.Log10(b) - 1e-9))
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// logTicks returns the labelled ticks of a log axis over decades
// [10^lo, 10^hi]: every decade, thinned to at most 8 labels, and when the
// axis spans at most two decades also 2× and 5×. minor are the unlabelled
// 2..9 × 10^k ticks.
func logTicks(lo, hi int) (major, minor []float64) {
	step := 1
	for (hi-lo)/step > 8 {
		step++
	}
	for k := lo; k <= hi; k++ {
		d := math.Pow(10, float64(k))
		if (k-lo)%step == 0 {
			major = append(major, d)
		}
		if k == hi {
			break
		}
		for m := 2; m <= 9; m++ {
			v := float64(m) * d
			if hi-lo <= 2 && (m == 2 || m == 5) {
				major = append(major, v)
			} else {
				minor = append(minor, v)
			}
		}
	}
	return major, minor
}

// tickLabel formats a tick value: plain decimals from 0.001 to 10^5,
// else 1e-4 style.
func tickLabel(v float64) string {
	if v >= 1e-3 && v <= 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	m, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	sign := ""
	if strings.HasPrefix(e, "-") {
		sign = "-"
	}
	e = strings.TrimLeft(strings.TrimLeft(e, "+-"), "0")
	return m + "e" + sign + e
}

// esc escapes text for XML.
func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// SVG renders the chart. Points with X or Y ≤ 0 (or NaN) are skipped; a
// series is drawn as connected segments between consecutive points.
func (c chart) SVG() []byte {
	var xs, ys []float64
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.X > 0 && p.Y > 0 && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0) {
				xs = append(xs, p.X)
				ys = append(ys, p.Y)
			}
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))
	if len(xs) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text>`+"\n", padL+plotW/2-25, padT+plotH/2)
		b.WriteString("</svg>\n")
		return b.Bytes()
	}
	xlo, xhi := logRange(minOf(xs), maxOf(xs))
	ylo, yhi := logRange(minOf(ys), maxOf(ys))
	px := func(x float64) float64 {
		return padL + (math.Log10(x)-float64(xlo))/float64(xhi-xlo)*plotW
	}
	py := func(y float64) float64 {
		return padT + plotH - (math.Log10(y)-float64(ylo))/float64(yhi-ylo)*plotH
	}
	// Frame, grid and ticks.
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", padL, padT, plotW, plotH)
	major, minor := logTicks(xlo, xhi)
	for _, v := range minor {
		x := f1(px(v))
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="black"/>`+"\n", x, padT+plotH, x, padT+plotH-3)
	}
	for _, v := range major {
		x := f1(px(v))
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#ddd"/>`+"\n", x, padT, x, padT+plotH)
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="black"/>`+"\n", x, padT+plotH, x, padT+plotH+tickLen)
		fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", x, padT+plotH+18, esc(tickLabel(v)))
	}
	major, minor = logTicks(ylo, yhi)
	for _, v := range minor {
		y := f1(py(v))
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="black"/>`+"\n", padL, y, padL+3, y)
	}
	for _, v := range major {
		y := f1(py(v))
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#ddd"/>`+"\n", padL, y, padL+plotW, y)
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="black"/>`+"\n", padL-tickLen, y, padL, y)
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", padL-8, y, esc(tickLabel(v)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, padT+plotH+40, esc(c.XLabel))
	fmt.Fprintf(&b, `<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>`+"\n", padT+plotH/2, padT+plotH/2, esc(c.YLabel))
	// Series.
	for i, s := range c.Series {
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for _, p := range s.Points {
			if !(p.X > 0 && p.Y > 0) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
				if len(pts) > 1 {
					fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", strings.Join(pts, " "), s.Color, dash)
				}
				pts = nil
				continue
			}
			pts = append(pts, f1(px(p.X))+","+f1(py(p.Y)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", strings.Join(pts, " "), s.Color, dash)
		}
		for _, p := range s.Points {
			if p.X > 0 && p.Y > 0 && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0) {
				writeMarker(&b, px(p.X), py(p.Y), p.Mark, s.Color)
			}
		}
		// Legend entry.
		ly := padT + 8 + i*legendRow
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.6"%s/>`+"\n", legendX, ly, legendX+26, ly, s.Color, dash)
		writeMarker(&b, float64(legendX+13), float64(ly), markOK, s.Color)
		fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", legendX+32, ly, esc(s.Name))
	}
	ly := padT + 8 + len(c.Series)*legendRow + 8
	writeMarker(&b, float64(legendX+13), float64(ly), markCap, "black")
	fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle">epoch cap</text>`+"\n", legendX+32, ly)
	writeMarker(&b, float64(legendX+13), float64(ly+legendRow), markTimeout, "black")
	fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle">time limit (≥)</text>`+"\n", legendX+32, ly+legendRow)
	if c.Note != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" fill="#555">%s</text>`+"\n", padL, svgH-8, esc(c.Note))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// writeMarker draws a point: filled circle (ok), hollow circle (cap) or
// an upward triangle (timeout: the value is a lower bound).
func writeMarker(b *bytes.Buffer, x, y float64, mark, color string) {
	switch mark {
	case markCap:
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%g" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n", f1(x), f1(y), markerR+0.5, color)
	case markTimeout:
		r := markerR + 1.5
		fmt.Fprintf(b, `<polygon points="%s,%s %s,%s %s,%s" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n",
			f1(x), f1(y-r), f1(x-r), f1(y+r*0.8), f1(x+r), f1(y+r*0.8), color)
	default:
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%g" fill="%s"/>`+"\n", f1(x), f1(y), markerR, color)
	}
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
