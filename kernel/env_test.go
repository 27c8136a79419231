package kernel

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEnvOverride re-runs the test binary with ACFCD_KERNEL set and checks
// the implementation chosen at start-up and the warning.
func TestEnvOverride(t *testing.T) {
	if os.Getenv("ACFCD_KERNEL_CHILD") == "1" {
		fmt.Printf("active=%s warning=%s\n", Active().Name, Warning())
		return
	}
	best := Impls()[len(Impls())-1].Name
	for _, c := range []struct{ env, active, warn string }{
		{"generic", "generic", ""},
		{best, best, ""},
		{"no-such-kernel", best, `ACFCD_KERNEL="no-such-kernel" is not available`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvOverride$")
		cmd.Env = append(os.Environ(), "ACFCD_KERNEL_CHILD=1", "ACFCD_KERNEL="+c.env)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("cannot re-run the test binary (%v), e.g. under qemu-user without binfmt", err)
		}
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "active=") {
				line = l
			}
		}
		if !strings.HasPrefix(line, "active="+c.active+" ") {
			t.Errorf("ACFCD_KERNEL=%s: got %q, want active=%s", c.env, line, c.active)
		}
		if (c.warn == "") != strings.HasSuffix(line, "warning=") || !strings.Contains(line, c.warn) {
			t.Errorf("ACFCD_KERNEL=%s: got %q, want warning containing %q", c.env, line, c.warn)
		}
	}
}
