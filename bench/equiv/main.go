// Command equiv shows that two revisions of acfcd train the same models: it
// builds the acfcd CLI at both, runs a fixed list of deterministic training
// runs with each binary and compares the model files byte for byte, every
// field of the JSON report but the time, the λ path tables and the
// cross-validation accuracies. It prints a Markdown report and exits with
// status 1 if any run differs. See README.md.
//
//	go run ./bench/equiv [-old REV] [-new REV] [-run REGEXP] [-out FILE]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

type options struct {
	oldRev, newRev string
	oldBin, newBin string
	data           string
	out            string
	run            *regexp.Regexp
	ignore         map[string]bool
	timeout        time.Duration
}

func main() {
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	differs, err := runAll(ctx, o, args, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 2
	}
	if differs {
		return 1
	}
	return 0
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("equiv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	var runRE, ignore string
	fs.StringVar(&o.oldRev, "old", "0a98920", "git revision of the reference build")
	fs.StringVar(&o.newRev, "new", "", "git revision to compare (default: the working tree as it is)")
	fs.StringVar(&o.oldBin, "old-bin", "", "use this prebuilt acfcd as the old side instead of building -old")
	fs.StringVar(&o.newBin, "new-bin", "", "use this prebuilt acfcd as the new side instead of building -new")
	fs.StringVar(&o.data, "data", "", "data directory (default $ACFCD_DATA, else ../shared/data from the module root)")
	fs.StringVar(&o.out, "out", "", "also write the Markdown report to this file")
	fs.StringVar(&runRE, "run", "", "only the runs whose name matches this regular expression")
	fs.StringVar(&ignore, "ignore", "", "comma-separated fields (JSON report fields, path, cv) whose differences are\nreported but do not fail the run")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "time limit of one run on one side")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench/equiv [flags]\n\nBuilds acfcd at -old and -new, runs the same training runs with both and compares\nmodels and reports. Exit status 1 if any run differs.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	re, err := regexp.Compile(runRE)
	if err != nil {
		return nil, fmt.Errorf("-run: %w", err)
	}
	o.run = re
	o.ignore = map[string]bool{}
	for f := range strings.SplitSeq(ignore, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "model" || f == "exit":
			return nil, fmt.Errorf("-ignore %s: the model and the exit status are always compared", f)
		case slices.Contains(reportFields, f) || f == "path" || f == "cv" || f == "report":
			o.ignore[f] = true
		default:
			return nil, fmt.Errorf("-ignore %s: not a compared field (%s, path, cv, report)", f, strings.Join(reportFields, ", "))
		}
	}
	return o, nil
}

// result is one run's outcome on both sides.
type result struct {
	run      run
	old, new *outcome
	diffs    []diff
	fails    bool
	ignored  bool // differs only in ignored fields
	verdict  string
	warnings []string
}

func runAll(ctx context.Context, o *options, args []string, stdout, stderr io.Writer) (bool, error) {
	root, err := findRoot()
	if err != nil {
		return false, err
	}
	dataDir := o.data
	if dataDir == "" {
		dataDir = os.Getenv("ACFCD_DATA")
	}
	if dataDir == "" {
		dataDir = filepath.Join(root, "..", "shared", "data")
	}
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		return false, err
	}
	var runs []run
	for _, r := range runList() {
		if o.run.MatchString(r.name) {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return false, fmt.Errorf("-run %q matches no run", o.run)
	}
	if err := checkData(dataDir, runs); err != nil {
		return false, err
	}

	tmp, err := os.MkdirTemp("", "acfcd-equiv-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)

	side := func(name, rev, bin string) (binary, error) {
		start := time.Now()
		var b binary
		var err error
		switch {
		case bin != "":
			b, err = prebuilt(bin)
		case rev == "":
			b, err = buildWorkTree(ctx, root, tmp, name)
		default:
			b, err = buildRev(ctx, root, rev, tmp, name)
		}
		if err != nil {
			return b, fmt.Errorf("-%s: %w", name, err)
		}
		fmt.Fprintf(stderr, "%s: %s (%.1f s)\n", name, b.from, time.Since(start).Seconds())
		return b, nil
	}
	oldB, err := side("old", o.oldRev, o.oldBin)
	if err != nil {
		return false, err
	}
	newB, err := side("new", o.newRev, o.newBin)
	if err != nil {
		return false, err
	}
	paths, err := dataPaths(dataDir, tmp, runs)
	if err != nil {
		return false, err
	}

	var results []*result
	for i, r := range runs {
		res := &result{run: r}
		// Alternate which side goes first so that a change in the machine's
		// load does not always fall on the same side.
		sides := []struct {
			bin string
			out **outcome
		}{{oldB.path, &res.old}, {newB.path, &res.new}}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, s := range sides {
			oc, err := execute(ctx, s.bin, r, paths[r.data], o.timeout)
			if ctx.Err() != nil {
				return false, fmt.Errorf("interrupted at run %s", r.name)
			}
			if err != nil {
				return false, fmt.Errorf("run %s: %w", r.name, err)
			}
			*s.out = oc
		}
		res.diffs = compare(res.old, res.new, o.ignore)
		res.fails, res.ignored, res.verdict = verdict(res.diffs)
		for _, s := range []struct {
			name string
			o    *outcome
		}{{"old", res.old}, {"new", res.new}} {
			if w := check(r, s.o); w != "" {
				res.warnings = append(res.warnings, s.name+" side: "+w)
			}
		}
		fmt.Fprintf(stderr, "[%d/%d] %-36s %-10s %6.2f s %6.2f s\n", i+1, len(runs), r.name,
			strings.SplitN(res.verdict, ":", 2)[0], res.old.wall.Seconds(), res.new.wall.Seconds())
		results = append(results, res)
	}

	md := report(header{old: oldB, new: newB, dataDir: dataDir, args: args, ignore: o.ignore}, results)
	if _, err := io.WriteString(stdout, md); err != nil {
		return false, err
	}
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
			return false, err
		}
	}
	return slices.ContainsFunc(results, func(r *result) bool { return r.fails }), nil
}
