package testkit

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A program on PATH (or at a path) may be there and still not run: a
// binary for another architecture, a missing shared library, a Python
// without numpy. Tests that compare with such a tool skip then, naming the
// reason, rather than fail.

var tools sync.Map // name and probe → toolResult

type toolResult struct {
	path string
	why  string // "" when the tool runs
}

// Runs returns the path of the program name and whether it runs: with
// probe arguments, that it exits 0 with them within 30 s (python3 -c
// "import numpy"); without, that it starts and does not exit 126 or 127,
// the shell's codes for a program that cannot run (liblinear-train with
// no arguments prints its usage and exits 1). Each check runs once per
// test binary.
func Runs(name string, probe ...string) (string, bool) {
	r := toolCheck(name, probe)
	return r.path, r.why == ""
}

// NeedTool is Runs that skips t, saying why, when the program cannot run.
func NeedTool(t testing.TB, name string, probe ...string) string {
	t.Helper()
	r := toolCheck(name, probe)
	if r.why != "" {
		t.Skip(r.why)
	}
	return r.path
}

func toolCheck(name string, probe []string) toolResult {
	key := name + "\x00" + strings.Join(probe, "\x00")
	if r, ok := tools.Load(key); ok {
		return r.(toolResult)
	}
	r := probeTool(name, probe)
	tools.Store(key, r)
	return r
}

func probeTool(name string, probe []string) toolResult {
	path, err := exec.LookPath(name)
	if err != nil {
		return toolResult{why: fmt.Sprintf("%s not installed", name)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, probe...).CombinedOutput()
	ee, exited := err.(*exec.ExitError)
	switch {
	case err == nil:
		return toolResult{path: path}
	case exited && len(probe) == 0 && ee.ExitCode() != 126 && ee.ExitCode() != 127 && ee.ExitCode() >= 0:
		return toolResult{path: path} // ran and refused no arguments
	}
	msg := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return toolResult{path: path, why: fmt.Sprintf("%s %s does not run here: %v %s", path, strings.Join(probe, " "), err, msg)}
}
