package kernel

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEnvOverride re-runs the test binary with ACFCD_KERNEL set and checks
// the implementation selected at start-up and EnvError.
func TestEnvOverride(t *testing.T) {
	if os.Getenv("ACFCD_KERNEL_CHILD") == "1" {
		fmt.Printf("name=%s err=%v\n", Name(), EnvError())
		return
	}
	avail := Available()
	best := avail[len(avail)-1]
	list := strings.Join(avail, ", ")
	type envCase struct{ env, name, err string }
	cs := []envCase{
		{"", best, "<nil>"},
		{"generic", "generic", "<nil>"},
		{best, best, "<nil>"},
		{"no-such-kernel", best, fmt.Sprintf(`ACFCD_KERNEL="no-such-kernel": unknown kernel (available: %s)`, list)},
		{"AVX2", best, fmt.Sprintf(`ACFCD_KERNEL="AVX2": unknown kernel (available: %s)`, list)},
	}
	for _, im := range impls {
		if !im.supported {
			cs = append(cs, envCase{im.name, best,
				fmt.Sprintf("ACFCD_KERNEL=%q: kernel not supported on this CPU (available: %s)", im.name, list)})
		}
	}
	for _, c := range cs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvOverride$")
		cmd.Env = append(os.Environ(), "ACFCD_KERNEL_CHILD=1", "ACFCD_KERNEL="+c.env)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("cannot re-run the test binary (%v), e.g. under qemu-user without binfmt", err)
		}
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "name=") {
				line = l
			}
		}
		if want := "name=" + c.name + " err=" + c.err; line != want {
			t.Errorf("ACFCD_KERNEL=%s: got %q, want %q", c.env, line, want)
		}
	}
}
