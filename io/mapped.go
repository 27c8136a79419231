package dataio

import (
	"fmt"
	"runtime/debug"
)

// Memory faults in mapped input
//
// A regular libsvm file is parsed straight from a read-only shared mapping
// (mapFile), and a binary cache is verified in, and then used from, its
// mapping (openCache). If another program truncates the file while it is
// mapped, reading a page beyond the new end raises SIGBUS, which would kill
// the process with a runtime fault dump. Every goroutine that reads a
// mapping while loading therefore runs with debug.SetPanicOnFault (it is a
// per-goroutine setting) and turns the recovered fault into an error that
// names the file: parseMapped and forChunks for libsvm text, and in
// io/internal/cache decodeCacheGuarded and cacheVerifier.runTasks for a
// cache.
//
// Training reads a cache's slices in place too (they point into the
// mapping until Dataset.Close); acfcd.Train and TrainPath
// guard their goroutines the same way (internal/fault).

// parseMapped parses libsvm text held in data, a mapping of the file name,
// with memory faults in the mapping turned into an error naming the file.
func parseMapped(name string, data []byte, opt Options) (d *Dataset, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			d, err = nil, fmt.Errorf("%s: %w", name, errFault)
		}
	}()
	// splitLines and parseLibSVM's first look at the text run on this
	// goroutine; the parsing goroutines guard themselves (forChunks).
	chunks := splitLines(data, threadCount(opt)*chunksPerThread, minChunkBytes)
	return parseLibSVM(name, chunks, opt)
}
