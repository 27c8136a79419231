package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"
)

// The generators' output is fixed by their seed: these hashes change only
// when the data does (`acfcd gen` and `acfcd demo` show the same data).
func TestGolden(t *testing.T) {
	h := sha256.New()
	d := Text(TextConfig{Rows: 2000, Features: 5000, MeanNNZ: 60, Informative: 200, Noise: 0.05, Seed: 1})
	for _, p := range d.RowPtr {
		binary.Write(h, binary.LittleEndian, p)
	}
	binary.Write(h, binary.LittleEndian, d.Index)
	for _, v := range d.Value {
		binary.Write(h, binary.LittleEndian, math.Float64bits(v))
	}
	binary.Write(h, binary.LittleEndian, d.Label)
	if got, want := fmt.Sprintf("%x", h.Sum(nil)), "a6f426b5ed3a955549c40c0f33ff73e4eb7b183102e2817006535f80cc9841f1"; got != want {
		t.Errorf("Text: sha256 %s, want %s", got, want)
	}

	for _, c := range []struct{ preset, want string }{
		{"kdd", "b4e782379c59733c28ca2780617df59454b1ccd99af947c06c135e98ba32c11d"},
		{"url", "b930ab85d026dba398352e2f8ae633f8be470ae5c8900b372f486f2c875e3c2d"},
	} {
		p := Presets[c.preset]
		p.Rows = 5000
		h := sha256.New()
		err := NewModel(p, 3).Generate(2, true, func(b *Block) error {
			h.Write(b.Text)
			return nil
		})
		if got := fmt.Sprintf("%x", h.Sum(nil)); err != nil || got != c.want {
			t.Errorf("%s: sha256 %s (%v), want %s", c.preset, got, err, c.want)
		}
	}
}

// TestGenerate: the blocks do not depend on the number of threads, the
// text is the rows', NNZ counts them, and emit's error stops Generate.
func TestGenerate(t *testing.T) {
	p := Presets["url"]
	p.Rows, p.Features, p.NNZ = 9000, 5000, 20 // three blocks, the last one short
	m := NewModel(p, 7)
	var first []*Block
	for _, threads := range []int{1, 3} {
		var blocks []*Block
		err := m.Generate(threads, threads == 1, func(b *Block) error {
			c := *b
			c.RowPtr, c.Index, c.Value, c.Label = slices.Clone(b.RowPtr), slices.Clone(b.Index), slices.Clone(b.Value), slices.Clone(b.Label)
			c.Text = slices.Clone(b.Text)
			blocks = append(blocks, &c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			first = blocks
			var nnz int64
			for _, b := range blocks {
				nnz += int64(len(b.Index))
				var text []byte
				for i := 0; i < b.Rows; i++ {
					a, e := b.RowPtr[i], b.RowPtr[i+1]
					text = appendRowText(text, b.Label[i], b.Index[a:e], b.Value[a:e])
				}
				if string(text) != string(b.Text) {
					t.Error("the text is not that of the rows")
				}
			}
			if got := m.NNZ(2); got != nnz {
				t.Errorf("NNZ = %d, the rows have %d", got, nnz)
			}
			continue
		}
		if len(blocks) != 3 || len(first) != 3 {
			t.Fatalf("%d and %d blocks, want 3", len(first), len(blocks))
		}
		for k, b := range blocks {
			a := first[k]
			if a.Rows != b.Rows || a.MaxIdx != b.MaxIdx || !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Index, b.Index) ||
				!slices.Equal(a.Value, b.Value) || !slices.Equal(a.Label, b.Label) || len(b.Text) != 0 {
				t.Errorf("block %d differs between 1 and 3 threads", k)
			}
		}
	}
	stop := fmt.Errorf("stop")
	n := 0
	if err := m.Generate(2, false, func(*Block) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Generate after a failed emit: %v, %d blocks emitted", err, n)
	}
}
