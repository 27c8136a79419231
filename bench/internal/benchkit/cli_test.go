package benchkit

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

func TestLists(t *testing.T) {
	if got := SplitList(" a, b,,c ,"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("SplitList = %q", got)
	}
	if got := SplitList(" , "); got != nil {
		t.Errorf("SplitList of blanks = %q, want nil", got)
	}
	if got, err := ParseList("1, 2,3", strconv.Atoi); err != nil || !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if got, err := ParseList("1,x", strconv.Atoi); err == nil || got != nil {
		t.Errorf("ParseList of a bad item = %v, %v", got, err)
	}
	if got, err := ParseList("", strconv.Atoi); err != nil || got != nil {
		t.Errorf("ParseList of nothing = %v, %v", got, err)
	}
}

func TestFields(t *testing.T) {
	for v, want := range map[float64]string{math.NaN(): "", 0.1: "0.1", 1e30: "1e+30", math.Inf(1): "+Inf"} {
		if got := CSVFloat(v); got != want {
			t.Errorf("CSVFloat(%g) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[int64]string{-1: "", 0: "0", 42: "42"} {
		if got := CSVInt(v); got != want {
			t.Errorf("CSVInt(%d) = %q, want %q", v, got, want)
		}
	}
	if got := MDEscape("a|b"); got != `a\|b` {
		t.Errorf("MDEscape = %q", got)
	}
}

func TestDataDir(t *testing.T) {
	t.Setenv("ACFCD_DATA", "")
	if got := DataDir(); got != "../shared/data" {
		t.Errorf("DataDir() = %q without $ACFCD_DATA", got)
	}
	t.Setenv("ACFCD_DATA", "some/dir")
	if got := DataDir(); got != "some/dir" {
		t.Errorf("DataDir() = %q with $ACFCD_DATA=some/dir", got)
	}
}
