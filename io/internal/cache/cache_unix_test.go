//go:build unix

package cache

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// A cache truncated in place while mapped must give an error, not crash
// the process (SIGBUS).
func TestCacheShrunkWhileMapped(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	path := cnWriteTemp(t, cnRandomDataset(r, 3000, 50, false, true, 0))
	mem, unmap, err := mapCacheFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		func() {
			defer func() {
				// qemu-user reports SIGBUS without the faulting address, so
				// the runtime cannot tell it from a nil dereference.
				if r := recover(); r != nil {
					t.Skipf("the fault came without its address (running under an emulator?): %v", r)
				}
			}()
			_, _, err = decodeCacheGuarded(path, mem, csr.Options{Threads: threads})
		}()
		if !errors.Is(err, errCacheFault) {
			t.Fatalf("threads %d: %v, want errCacheFault", threads, err)
		}
	}
}
