package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/acfcd/acfcd/internal/atomicfile"
	dataio "github.com/acfcd/acfcd/io"
)

// dataFlags are the reader options every command that takes DATA accepts.
type dataFlags struct {
	zeroBased   bool
	float32     bool
	keepQID     bool
	format      string
	threads     int
	maxFeatures int
	maxLine     int
	maxRatio    int
}

func (f *dataFlags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
}) {
	fs.BoolVar(&f.zeroBased, "zero-based", false, "feature indices in DATA start at 0")
	fs.BoolVar(&f.float32, "float32", false, "store values as float32 (half the value memory)")
	fs.BoolVar(&f.keepQID, "keep-qid", false, "keep qid:N tokens instead of ignoring them")
	fs.StringVar(&f.format, "format", "", "input format: libsvm, ndjson or cache (default: detect)")
	fs.IntVar(&f.threads, "threads", 0, "parser goroutines (default: all cores)")
	fs.IntVar(&f.maxFeatures, "max-features", 0, "reject feature indices above this (default: the int32 limit)")
	fs.IntVar(&f.maxLine, "max-line", 0, "longest line, in bytes, read from a stream (stdin, a pipe, .gz/.bz2) (default 128 MiB)")
	fs.IntVar(&f.maxRatio, "max-ratio", 0, "most a .gz/.bz2 input may expand, as a multiple of its compressed size (default 200)")
}

func (f *dataFlags) options() dataio.Options {
	return dataio.Options{ZeroBased: f.zeroBased, Float32: f.float32, KeepQID: f.keepQID,
		Format: f.format, Threads: f.threads, MaxFeatures: f.maxFeatures, MaxLine: f.maxLine,
		MaxRatio: f.maxRatio}
}

// info is what `acfcd info` reports.
type info struct {
	File         string    `json:"file"`
	Rows         int       `json:"rows"`
	Features     int       `json:"features"`
	NNZ          int64     `json:"nnz"`
	Labels       []float64 `json:"labels,omitempty"` // the label set, when it is small and integral
	LabelCounts  []int     `json:"label_counts,omitempty"`
	LabelMin     float64   `json:"label_min"`
	LabelMax     float64   `json:"label_max"`
	FileBytes    int64     `json:"file_bytes"`
	InputBytes   int64     `json:"input_bytes"`
	ParseSeconds float64   `json:"parse_seconds"`
	MBPerSecond  float64   `json:"mb_per_s"`
	BytesPerNNZ  float64   `json:"resident_bytes_per_nnz"` // 0 when loading grew the resident size by less than minMeasuredRSS
	Cache        bool      `json:"cache"`                  // a binary cache, mapped: ParseSeconds and MBPerSecond time the mapping
	Threads      int       `json:"threads"`
}

func runInfo(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("info", stdout)
	asJSON := fs.Bool("json", false, "print one JSON object")
	var df dataFlags
	df.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.args("info takes one DATA argument")
	}
	path := fs.Arg(0)
	opt := df.options()

	rssBefore := residentBytes()
	start := time.Now()
	d, err := dataio.Load(path, opt)
	if err != nil {
		return err
	}
	defer d.Close()
	secs := time.Since(start).Seconds()
	runtime.GC()
	debug.FreeOSMemory()
	rssAfter := residentBytes()

	in := info{File: path, Rows: d.Rows, Features: d.Features, NNZ: d.NNZ(),
		InputBytes: d.InputBytes, ParseSeconds: secs, Threads: opt.Threads}
	if in.Threads == 0 {
		in.Threads = runtime.GOMAXPROCS(0)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		in.FileBytes = st.Size()
	}
	if secs > 0 {
		in.MBPerSecond = float64(d.InputBytes) / 1e6 / secs
	}
	// Below some MiB the resident size is the runtime's own and its pages,
	// not the data's: no per-non-zero figure then.
	if grew := rssAfter - rssBefore; in.NNZ > 0 && rssBefore > 0 && grew >= minMeasuredRSS {
		in.BytesPerNNZ = float64(grew) / float64(in.NNZ)
	}
	in.Cache = opt.Format == "cache" || (opt.Format == "" && dataio.IsCache(path))
	in.LabelMin, in.LabelMax = math.Inf(1), math.Inf(-1)
	counts := map[float64]int{}
	for _, y := range d.Label {
		in.LabelMin = math.Min(in.LabelMin, y)
		in.LabelMax = math.Max(in.LabelMax, y)
		if len(counts) <= maxListedLabels && y == math.Trunc(y) {
			counts[y]++
		}
	}
	if d.Rows == 0 {
		in.LabelMin, in.LabelMax = 0, 0
	}
	integral := true
	for _, y := range d.Label {
		if y != math.Trunc(y) {
			integral = false
			break
		}
	}
	if integral && len(counts) <= maxListedLabels {
		for y := range counts {
			in.Labels = append(in.Labels, y)
		}
		sort.Float64s(in.Labels)
		for _, y := range in.Labels {
			in.LabelCounts = append(in.LabelCounts, counts[y])
		}
	}

	if *asJSON {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "file        %s\n", in.File)
	fmt.Fprintf(stdout, "rows        %d\n", in.Rows)
	fmt.Fprintf(stdout, "features    %d\n", in.Features)
	fmt.Fprintf(stdout, "nnz         %d (%.1f per row)\n", in.NNZ, float64(in.NNZ)/math.Max(1, float64(in.Rows)))
	if in.Labels != nil {
		parts := make([]string, len(in.Labels))
		for i, y := range in.Labels {
			parts[i] = strconv.FormatFloat(y, 'g', -1, 64) + ":" + strconv.Itoa(in.LabelCounts[i])
		}
		fmt.Fprintf(stdout, "labels      %d classes: %s\n", len(in.Labels), strings.Join(parts, " "))
	} else {
		fmt.Fprintf(stdout, "labels      range %g .. %g\n", in.LabelMin, in.LabelMax)
	}
	if in.FileBytes > 0 {
		fmt.Fprintf(stdout, "file size   %d bytes\n", in.FileBytes)
	}
	if in.Cache {
		fmt.Fprintf(stdout, "mapped      a binary cache of %d bytes in %.3f s (no parsing)\n", in.InputBytes, in.ParseSeconds)
	} else {
		fmt.Fprintf(stdout, "parsed      %d bytes in %.3f s (%.1f MB/s, %d threads)\n", in.InputBytes, in.ParseSeconds, in.MBPerSecond, in.Threads)
	}
	if in.BytesPerNNZ > 0 {
		fmt.Fprintf(stdout, "memory      %.2f resident bytes per non-zero after loading\n", in.BytesPerNNZ)
	}
	return nil
}

// minMeasuredRSS is the least growth of the resident size that gives a
// per-non-zero figure.
const minMeasuredRSS = 16 << 20

// maxListedLabels is how many distinct labels info lists before it gives a range.
const maxListedLabels = 100

// residentBytes returns the process's resident set size from
// /proc/self/status, or 0 where that file does not exist.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func runConvert(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("convert", stdout)
	var df dataFlags
	df.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fs.args("convert takes DATA and OUT")
	}
	out := fs.Arg(1)
	info := stdout
	if out == "-" || atomicfile.IsStdout(out) {
		info = stderr // standard output holds the cache alone
	}
	if out != "-" {
		if err := atomicfile.CheckFile(out, fs.Arg(0)); err != nil { // before the parse
			return err
		}
	} else if err := stdoutOpen(stdout); err != nil {
		return fmt.Errorf("write cache to standard output: %w", err)
	}
	d, err := dataio.Load(fs.Arg(0), df.options())
	if err != nil {
		return err
	}
	defer d.Close()
	if out == "-" {
		err = writeCacheTo(stdout, d)
	} else {
		err = dataio.WriteCache(out, d)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(info, "wrote %s: %d rows, %d features, %d non-zeros\n", out, d.Rows, d.Features, d.NNZ())
	return nil
}

// writeCacheTo writes d as a binary cache to w. The cache writer seeks, so
// the cache goes to a temporary file first.
func writeCacheTo(w io.Writer, d *dataio.Dataset) error {
	dir, err := os.MkdirTemp("", "acfcd-convert")
	if err != nil {
		return fmt.Errorf("write cache to standard output: %w", err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "cache.acf")
	if err := dataio.WriteCache(tmp, d); err != nil {
		return fmt.Errorf("write cache to standard output: %w", err)
	}
	f, err := os.Open(tmp)
	if err != nil {
		return fmt.Errorf("write cache to standard output: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("write cache to standard output: %w", err)
	}
	return nil
}
