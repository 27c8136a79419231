package dataio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheWrappers: WriteCache, WriteCacheStream and Load of a cache
// through this package's types (the cache itself is tested in
// io/internal/cache).
func TestCacheWrappers(t *testing.T) {
	d := &Dataset{Rows: 3, Features: 7, RowPtr: []int64{0, 2, 2, 3}, Index: []int32{0, 6, 3},
		Value: []float64{0.5, -1, 2}, Label: []float64{1, -1, 1}}
	dir := t.TempDir()
	path := filepath.Join(dir, "d.acf")
	if err := WriteCache(path, d); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(path)

	got, err := Load(path, Options{KeepQID: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameData(got, d); diff != "" {
		t.Fatal(diff)
	}
	if got.Source != path || got.InputBytes != int64(len(want)) || got.Where(1) != path+": example 2" {
		t.Errorf("Source %q InputBytes %d Where %q", got.Source, got.InputBytes, got.Where(1))
	}
	if err := got.Close(); err != nil {
		t.Fatal(err)
	}
	if err := got.Close(); err != nil {
		t.Fatal(err)
	}

	var leaked *CacheStreamWriter
	spath := filepath.Join(dir, "s.acf")
	err = WriteCacheStream(spath, CacheStreamOptions{Features: 7}, func(w *CacheStreamWriter) error {
		leaked = w
		if err := w.WriteRow(d.Label[0], d.Index[:2], d.Value[:2]); err != nil {
			return err
		}
		rest := &Dataset{Rows: 2, Features: 4, RowPtr: []int64{0, 0, 1}, Index: d.Index[2:], Value: d.Value[2:], Label: d.Label[1:]}
		if err := w.WriteRows(rest); err != nil {
			return err
		}
		if w.Rows() != 3 || w.NNZ() != 3 {
			t.Errorf("writer counts %d rows %d nnz", w.Rows(), w.NNZ())
		}
		if err := w.WriteRows(nil); err == nil || err.Error() != "nil dataset" {
			t.Errorf("WriteRows(nil): %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(spath); !bytes.Equal(b, want) {
		t.Error("streamed cache differs from WriteCache's")
	}
	if err := leaked.WriteRow(1, nil, nil); err == nil {
		t.Error("WriteRow after fill returned succeeded")
	}

	if err := WriteCache(path, nil); err == nil || err.Error() != "write cache "+path+": nil dataset" {
		t.Errorf("nil dataset: %v", err)
	}
	bad := *d
	bad.Label = []float64{1}
	if err := WriteCache(path, &bad); err == nil || !strings.Contains(err.Error(), "invalid dataset: Label has 1 entries for 3 rows") {
		t.Errorf("bad dataset: %v", err)
	}
	if err := WriteCacheStream(path, CacheStreamOptions{Features: -1}, nil); err == nil {
		t.Error("negative features accepted")
	}
}
