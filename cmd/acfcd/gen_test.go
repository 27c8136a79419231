package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// genFile runs acfcd gen with args and --out path, and returns the file.
func genFile(t *testing.T, path string, args ...string) []byte {
	t.Helper()
	out, _, err := runCmd(t, append([]string{"gen", "--out", path}, args...)...)
	if err != nil {
		t.Fatalf("gen %q: %v", args, err)
	}
	if !strings.HasPrefix(out, "wrote "+path+": ") {
		t.Errorf("gen %q printed %q", args, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func genLoad(t *testing.T, path string) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Load(path, dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestGenShape: generated files load with the normal loader and have the
// advertised shape.
func TestGenShape(t *testing.T) {
	for _, c := range []struct {
		preset    string
		tail      float64 // the longest row is at least this many times the mean
		realShare [2]float64
	}{
		{"kdd", 3, [2]float64{0.02, 0.1}},
		{"url", 1.6, [2]float64{0.05, 0.15}},
	} {
		p := synth.Presets[c.preset]
		const rows = 4000
		path := filepath.Join(t.TempDir(), c.preset+".svm")
		genFile(t, path, "--preset", c.preset, "--rows", fmt.Sprint(rows), "--seed", "3")
		d := genLoad(t, path)
		if d.Rows != rows {
			t.Fatalf("%s: %d rows", c.preset, d.Rows)
		}
		mean := float64(d.NNZ()) / rows
		if math.Abs(mean-p.NNZ) > 0.04*p.NNZ {
			t.Errorf("%s: %.1f non-zeros per row, want about %g", c.preset, mean, p.NNZ)
		}
		longest := int64(0)
		for i := 0; i < rows; i++ {
			longest = max(longest, d.RowPtr[i+1]-d.RowPtr[i])
		}
		if float64(longest) < c.tail*mean {
			t.Errorf("%s: longest row %d, not %g times the mean %.1f", c.preset, longest, c.tail, mean)
		}
		pos := 0
		for _, y := range d.Label {
			switch y {
			case 1:
				pos++
			case -1:
			default:
				t.Fatalf("%s: label %g", c.preset, y)
			}
		}
		if share := float64(pos) / rows; math.Abs(share-p.Positive) > 0.03 {
			t.Errorf("%s: %.3f of the labels are +1, want about %g", c.preset, share, p.Positive)
		}
		// Indices spread over the whole range, up to the preset's count.
		if d.Features > p.Features || d.Features < p.Features*8/10 {
			t.Errorf("%s: %d features (1 + largest index), want up to %d and most of it", c.preset, d.Features, p.Features)
		}
		// Power law: a heavy head and a long tail of features seen once.
		counts := map[int32]int{}
		real := 0
		for k, j := range d.Index {
			counts[j]++
			if d.Value[k] != 1 {
				real++
			}
		}
		freq := make([]int, 0, len(counts))
		once := 0
		for _, n := range counts {
			freq = append(freq, n)
			if n == 1 {
				once++
			}
		}
		slices.Sort(freq)
		slices.Reverse(freq)
		head := 0
		for _, n := range freq[:len(freq)/100] {
			head += n
		}
		if share := float64(head) / float64(d.NNZ()); share < 0.3 {
			t.Errorf("%s: the 1%% most frequent features hold %.2f of the non-zeros, want a heavy head", c.preset, share)
		}
		if float64(once) < 0.5*float64(len(freq)) {
			t.Errorf("%s: %d of %d features seen once, want a long tail", c.preset, once, len(freq))
		}
		if share := float64(real) / float64(d.NNZ()); share < c.realShare[0] || share > c.realShare[1] {
			t.Errorf("%s: %.3f of the values are not 1, want %v", c.preset, share, c.realShare)
		}
	}
}

// TestGenDeterministic: the same seed gives the same bytes, whatever the
// number of threads; another seed gives other data.
func TestGenDeterministic(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".svm", ".acf"} {
		args := []string{"--preset", "kdd", "--rows", "9000", "--seed", "7"} // three blocks, the last one short
		if testing.Short() {
			args = append(args[:4:4], "--nnz-per-row", "8", "--seed", "7")
		}
		a := genFile(t, filepath.Join(dir, "a"+ext), append(args, "--threads", "1")...)
		b := genFile(t, filepath.Join(dir, "b"+ext), append(args, "--threads", "3")...)
		c := genFile(t, filepath.Join(dir, "c"+ext), args...)
		if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
			t.Errorf("%s: same seed, different bytes", ext)
		}
		args[len(args)-1] = "8"
		if d := genFile(t, filepath.Join(dir, "d"+ext), args...); bytes.Equal(a, d) {
			t.Errorf("%s: seeds 7 and 8 gave the same bytes", ext)
		}
	}
}

// TestGenCacheMatchesText: FILE.acf holds the dataset of the text, byte for
// byte what `acfcd convert` makes of the text; - writes the text.
func TestGenCacheMatchesText(t *testing.T) {
	dir := t.TempDir()
	for _, preset := range []string{"kdd", "url"} {
		args := []string{"--preset", preset, "--rows", "5000", "--seed", "11"}
		if testing.Short() {
			args = append(args, "--nnz-per-row", "12")
		}
		text := genFile(t, filepath.Join(dir, preset+".svm"), args...)
		cache := genFile(t, filepath.Join(dir, preset+".acf"), args...)
		conv := filepath.Join(dir, preset+".conv.acf")
		if _, _, err := runCmd(t, "convert", filepath.Join(dir, preset+".svm"), conv); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(conv); !bytes.Equal(b, cache) {
			t.Errorf("%s: gen's cache (%d bytes) differs from the converted text (%d bytes)", preset, len(cache), len(b))
		}
		dt, dc := genLoad(t, filepath.Join(dir, preset+".svm")), genLoad(t, filepath.Join(dir, preset+".acf"))
		if dt.Rows != dc.Rows || dt.Features != dc.Features || !slices.Equal(dt.RowPtr, dc.RowPtr) ||
			!slices.Equal(dt.Index, dc.Index) || !slices.Equal(dt.Value, dc.Value) || !slices.Equal(dt.Label, dc.Label) {
			t.Errorf("%s: text and cache load differently", preset)
		}
		out, _, err := runCmd(t, append([]string{"gen", "--out", "-"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(text) {
			t.Errorf("%s: --out - wrote other text than the file", preset)
		}
	}
}

// TestGenOverrides: --features, --nnz-per-row and --rows replace the preset's.
func TestGenOverrides(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.svm")
	genFile(t, path, "--preset", "url", "--rows", "3000", "--features", "5000", "--nnz-per-row", "20")
	d := genLoad(t, path)
	mean := float64(d.NNZ()) / float64(d.Rows)
	if d.Rows != 3000 || d.Features > 5000 || d.Features < 4000 || math.Abs(mean-20) > 1 {
		t.Errorf("%d rows, %d features, %.1f non-zeros per row; want 3000, at most 5000, 20", d.Rows, d.Features, mean)
	}
}

func TestGenUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.svm")
	for _, args := range [][]string{
		{"--out", out},
		{"--preset", "rcv1", "--out", out},
		{"--preset", "kdd"},
		{"--preset", "kdd", "--out", out, "extra"},
		{"--preset", "kdd", "--out", out, "--rows", "-1"},
		{"--preset", "kdd", "--out", out, "--features", "10"},
		{"--preset", "kdd", "--out", out, "--nnz-per-row", "-3"},
		{"--preset", "kdd", "--out", out, "--features", "100", "--nnz-per-row", "30"},
		{"--preset", "kdd", "--out", out, "--threads", "-1"},
		{"--preset", "kdd", "--out", out, "--nosuchflag"},
	} {
		_, _, err := runCmd(t, append([]string{"gen"}, args...)...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
	if _, _, err := runCmd(t, "gen", "--preset", "kdd", "--rows", "10", "--out", filepath.Join(out, "no", "x.acf")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a usage error wrote a file")
	}
}
