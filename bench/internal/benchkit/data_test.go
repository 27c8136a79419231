package benchkit

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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

// TestDerivePlainAndCompressed: news20bin is derived from news20 whether
// the data folder holds it as plain text (a decompressed copy) or bzip2.
func TestDerivePlainAndCompressed(t *testing.T) {
	text := "1 1:0.5\n20 2:1\n"
	want := "+1 1:0.5\n-1 2:1\n"
	for _, compressed := range []bool{false, true} {
		if compressed {
			if _, err := exec.LookPath("bzip2"); err != nil {
				t.Skip("no bzip2")
			}
		}
		dataDir := t.TempDir()
		src := filepath.Join(dataDir, "news20")
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if compressed {
			if out, err := exec.Command("bzip2", src).CombinedOutput(); err != nil {
				t.Fatalf("bzip2: %v %s", err, out)
			}
		}
		w, err := NewWorkspace(dataDir, t.TempDir(), true)
		if err != nil {
			t.Fatal(err)
		}
		p, err := w.Derive("news20", "news20bin.svm", News20Binary)
		if err != nil {
			t.Fatalf("compressed=%v: %v", compressed, err)
		}
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("compressed=%v: derived %q, want %q", compressed, got, want)
		}
		w.Close()
	}
}
