package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/kernel"
)

// TestKernelEnv: an ACFCD_KERNEL that names no kernel this CPU supports
// stops the command before it runs, with exit status 1 and a message
// naming the variable; a valid one is honoured. The test binary runs
// itself as acfcd, since the variable is read once, at start-up.
func TestKernelEnv(t *testing.T) {
	if os.Getenv("ACFCD_KERNEL_ENV_TEST") == "1" {
		os.Args = []string{"acfcd", "version"}
		main()
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	avail := strings.Join(kernel.Available(), ", ")
	for _, c := range []struct {
		env            string
		code           int
		stdout, stderr string
	}{
		{"no-such-kernel", 1, "", `acfcd: ACFCD_KERNEL="no-such-kernel": unknown kernel (available: ` + avail + ")\n"},
		{"generic", 0, "chosen    generic\n", ""},
	} {
		cmd := testkit.Command(exe, "-test.run=^TestKernelEnv$")
		cmd.Env = append(os.Environ(), "ACFCD_KERNEL_ENV_TEST=1", "ACFCD_KERNEL="+c.env)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Skipf("cannot re-run the test binary: %v", err)
		}
		if code != c.code || stderr.String() != c.stderr || !strings.Contains(stdout.String(), c.stdout) || (c.stdout == "") != (stdout.Len() == 0) {
			t.Errorf("ACFCD_KERNEL=%s acfcd version: exit status %d, stdout %q, stderr %q; want %d, %q, %q",
				c.env, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
		}
	}
}
