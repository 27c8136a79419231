package kernel

import (
	"fmt"
	"os"
	"strings"
)

// The registry lists the implementations this build has, so that start-up
// can pick one, ACFCD_KERNEL can name one, and the tests can run each in
// turn in one binary (as crypto/internal/impl does for the standard
// library). The kernels never look at it: they test the flags it sets.

// impl is one implementation. Selecting it sets exactly its flags and
// clears every other; generic has none, so with every flag clear the
// kernels run the generic loops.
type impl struct {
	name      string
	supported bool    // the CPU can run it (cpuid, at start-up)
	flags     []*bool // dispatch flags to set, e.g. &useAVX2
}

// impls holds generic first and the architecture's implementations after
// it, best last.
var impls = append([]impl{{name: "generic", supported: true}}, archImpls()...)

var (
	current = "generic" // name of the selected implementation
	envErr  error       // why ACFCD_KERNEL was not honoured
)

// init selects the best implementation, or the one ACFCD_KERNEL names;
// an empty value counts as unset.
func init() {
	best := Available()
	selectImpl(best[len(best)-1])
	name := os.Getenv("ACFCD_KERNEL")
	if name == "" || selectImpl(name) {
		return
	}
	why := "unknown kernel"
	for _, im := range impls {
		if im.name == name {
			why = "kernel not supported on this CPU"
		}
	}
	envErr = fmt.Errorf("ACFCD_KERNEL=%q: %s (available: %s)", name, why, strings.Join(best, ", "))
}

// selectImpl makes the named implementation the one in use and reports
// whether the CPU supports it; if not, nothing changes. Not safe to call
// concurrently with the kernels: tests and start-up only.
func selectImpl(name string) bool {
	var sel *impl
	for i := range impls {
		if impls[i].name == name && impls[i].supported {
			sel = &impls[i]
		}
	}
	if sel == nil {
		return false
	}
	for _, im := range impls {
		for _, f := range im.flags {
			*f = false
		}
	}
	for _, f := range sel.flags {
		*f = true
	}
	current = name
	return true
}

// Name returns the name of the implementation in use: "generic", "avx2",
// "avx512" or "neon".
func Name() string { return current }

// Available returns the implementations this CPU supports, generic first,
// best last.
func Available() []string {
	var names []string
	for _, im := range impls {
		if im.supported {
			names = append(names, im.name)
		}
	}
	return names
}

// EnvError returns an error naming ACFCD_KERNEL, its value and the
// available implementations if the variable is set to a name that is
// unknown or not supported on this CPU (the kernels then use the best
// one), and nil otherwise.
func EnvError() error { return envErr }
