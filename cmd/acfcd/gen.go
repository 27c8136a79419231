package main

// acfcd gen: synthetic data at the scale of kdd2010 and url, streamed to
// libsvm text or to the binary cache. The data model (presets, random
// streams, rows) is internal/synth's Model; this file is the command:
// flags, output files, signals and progress.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/acfcd/acfcd/internal/atomicfile"
	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

func runGen(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("gen", stdout)
	names := make([]string, 0, len(synth.Presets))
	for n := range synth.Presets {
		names = append(names, n)
	}
	slices.Sort(names)
	help := "shape of the data:"
	for _, n := range names {
		p := synth.Presets[n]
		help += fmt.Sprintf("\n%s: %d rows, %d features, %g non-zeros per row; %s", n, p.Rows, p.Features, p.NNZ, p.About)
	}
	preset := fs.String("preset", "", help)
	rows := fs.Int("rows", 0, "rows (default: the preset's)")
	features := fs.Int("features", 0, "features (default: the preset's)")
	nnz := fs.Float64("nnz-per-row", 0, "mean non-zeros per row (default: the preset's)")
	seed := fs.Uint64("seed", 1, "seed: the same seed and shape give the same bytes")
	out := fs.String("out", "", "output: FILE.acf (binary cache), another FILE (libsvm text) or - (text on standard output)")
	threads := fs.Int("threads", 0, "generating goroutines (default: all cores)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fs.args("gen takes no arguments, only flags")
	}
	p, ok := synth.Presets[*preset]
	if !ok {
		if *preset == "" {
			return usagef("gen needs --preset (%s)", strings.Join(names, " or "))
		}
		return usagef("--preset %q: unknown (%s)", *preset, strings.Join(names, " or "))
	}
	if *out == "" {
		return usagef("gen needs --out FILE (FILE.acf for a binary cache, - for standard output)")
	}
	if *rows != 0 {
		p.Rows = *rows
	}
	if *features != 0 {
		p.Features = *features
	}
	if *nnz != 0 {
		p.NNZ = *nnz
	}
	switch {
	case p.Rows < 1:
		return usagef("--rows %d: need at least 1", p.Rows)
	case p.Features < 16 || p.Features > math.MaxInt32:
		return usagef("--features %d: need 16 to %d", p.Features, math.MaxInt32)
	case !(p.NNZ >= 1) || p.NNZ > float64(p.Features)/4:
		return usagef("--nnz-per-row %g: need 1 to features/4 (%d)", p.NNZ, p.Features/4)
	case *threads < 0:
		return usagef("--threads %d: need at least 1 (0: all cores)", *threads)
	}
	nt := *threads
	if nt == 0 {
		nt = runtime.GOMAXPROCS(0)
	}
	g := &genWriter{m: synth.NewModel(p, *seed), rows: p.Rows, threads: nt}
	shown := false
	if isTerminal(stderr) {
		last := time.Now()
		g.progress = func(rows int) {
			if time.Since(last) >= time.Second {
				last, shown = time.Now(), true
				fmt.Fprintf(stderr, "\rgen: %d of %d rows", rows, p.Rows)
			}
		}
	}

	// SIGINT and SIGTERM stop the generation: the temporary file is
	// removed and nothing is written; a second signal ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	g.ctx = ctx

	start := time.Now()
	var err error
	switch {
	case *out == "-":
		err = g.writeText(stdout)
	case strings.HasSuffix(*out, ".acf"):
		if err = atomicfile.CheckFile(*out); err != nil {
			return err
		}
		err = g.writeCache(*out)
	default:
		if err = atomicfile.Check(*out); err != nil {
			return err
		}
		err = atomicfile.Write(*out, func(w *bufio.Writer) error { return g.writeText(w) })
	}
	if shown {
		fmt.Fprintf(stderr, "\r%*s\r", 20+2*len(strconv.Itoa(p.Rows)), "")
	}
	if err != nil {
		return err
	}
	if *out == "-" {
		return nil
	}
	secs := time.Since(start).Seconds()
	var size int64
	if fi, err := os.Stat(*out); err == nil {
		size = fi.Size()
	}
	st := &g.st
	fmt.Fprintf(stdout, "wrote %s: %d rows, %d features, %d non-zeros (%.1f per row), %.1f%% +1; %d bytes in %.2f s (%.1f MB/s, %d threads)\n",
		*out, st.rows, st.features, st.nnz, float64(st.nnz)/float64(max(st.rows, 1)), 100*float64(st.pos)/float64(max(st.rows, 1)),
		size, secs, float64(size)/1e6/secs, nt)
	return nil
}

// genStats are the totals of what was written.
type genStats struct {
	rows, pos int
	nnz       int64
	features  int // 1 + the largest index, as a reader counts them
}

// errGenInterrupted ends a generation stopped by a signal.
var errGenInterrupted = errors.New("interrupted")

// genWriter writes the rows of a model and counts what it wrote.
type genWriter struct {
	m        *synth.Model
	rows     int // the model's
	threads  int
	progress func(rows int)  // called after each block written, when set
	ctx      context.Context // generation stops when it is cancelled
	st       genStats
}

// add counts a block about to be written, or reports an interruption.
func (g *genWriter) add(b *synth.Block) error {
	if g.ctx != nil && g.ctx.Err() != nil {
		return errGenInterrupted
	}
	g.st.add(b)
	if g.progress != nil {
		g.progress(g.st.rows)
	}
	return nil
}

func (s *genStats) add(b *synth.Block) {
	s.rows += b.Rows
	s.nnz += int64(len(b.Index))
	s.features = max(s.features, int(b.MaxIdx)+1)
	for _, y := range b.Label {
		if y > 0 {
			s.pos++
		}
	}
}

// writeText streams the rows as libsvm text to w.
func (g *genWriter) writeText(w io.Writer) error {
	return g.m.Generate(g.threads, true, func(b *synth.Block) error {
		if err := g.add(b); err != nil {
			return err
		}
		_, err := w.Write(b.Text)
		return err
	})
}

// writeCache streams the rows to a binary cache at path: the counts first,
// for the exact shape, then the rows, each section written in place.
func (g *genWriter) writeCache(path string) error {
	opt := dataio.CacheStreamOptions{KnownShape: true, Rows: g.rows, NNZ: g.m.NNZ(g.threads)}
	return dataio.WriteCacheStream(path, opt, func(cw *dataio.CacheStreamWriter) error {
		return g.m.Generate(g.threads, false, func(b *synth.Block) error {
			if err := g.add(b); err != nil {
				return err
			}
			d := &dataio.Dataset{Rows: b.Rows, Features: int(b.MaxIdx) + 1, RowPtr: b.RowPtr,
				Index: b.Index, Value: b.Value, Label: b.Label}
			if err := cw.WriteRows(d); err != nil {
				return errors.New("internal error: generated rows refused: " + err.Error())
			}
			return nil
		})
	})
}
