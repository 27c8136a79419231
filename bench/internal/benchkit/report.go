package benchkit

import (
	"math"
	"strconv"
	"strings"
)

// CSVFloat is v in full precision, NaN (unknown) as an empty field.
func CSVFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// CSVInt is v, a negative v (unknown) as an empty field.
func CSVInt(v int64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// MDEscape escapes the '|' of a Markdown table cell.
func MDEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
