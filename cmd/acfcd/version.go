package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/acfcd/acfcd/kernel"
)

func runVersion(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("version", stdout)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fs.args("version takes no arguments")
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	fmt.Fprintf(stdout, "acfcd %s %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "cpu       %s\n", kernel.CPUFeatures())
	fmt.Fprintf(stdout, "kernels   %s\n", strings.Join(kernel.Available(), " "))
	fmt.Fprintf(stdout, "chosen    %s\n", kernel.Name())
	return nil
}
