package solver

// Tuning holds the driver's constants that were chosen by measurement, with
// the defaults of DefaultTuning; docs/tuning.md records the runs behind
// each. None of them changes what a converged model solves, only the path
// to it (and the memory on the way). They are not part of acfcd's API:
// tests pass a modified copy, and the benchmark harnesses reach a
// training's through its context (internal/tune).
type Tuning struct {
	// PrefetchAhead is how many steps ahead a batch prefetches its
	// coordinates' data (0: no prefetching).
	PrefetchAhead int
	// PollWork is about how many non-zeros the solvers touch between two
	// checks for cancellation.
	PollWork int64
	// SweepStreamMin is the most coordinates whose sweeps are built whole;
	// above it a sweep is streamed in shuffled chunks of at most
	// SweepChunk steps and shrinking keeps only a bitset (memory at
	// 10⁷ examples).
	SweepStreamMin, SweepChunk int
	// EarlyCheck: the ACF selections of problems that ask for it run one
	// full KKT pass the first time a sweep's violation is within
	// EarlyCheck·eps.
	EarlyCheck float64
	// PartialUnshrinks: the first PartialUnshrinks failed full passes
	// in a row bring back only the shrunk violators they repaired; the
	// next brings back all shrunk coordinates (acf+shrink).
	PartialUnshrinks int
	// KKTChunkRows is the number of rows in a chunk of a full KKT pass;
	// it, never GOMAXPROCS, fixes how the pass's sums are formed.
	KKTChunkRows int
	// KKTParallelNNZ: a pass over fewer non-zeros runs on one goroutine.
	KKTParallelNNZ int64
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		PrefetchAhead:    2,
		PollWork:         1 << 20,
		SweepStreamMin:   1 << 22,
		SweepChunk:       1 << 21,
		EarlyCheck:       10,
		PartialUnshrinks: 3,
		KKTChunkRows:     1024,
		KKTParallelNNZ:   1 << 16,
	}
}
