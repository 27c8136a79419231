package main

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

type header struct {
	old, new binary
	dataDir  string
	args     []string
	ignore   map[string]bool
}

// report renders the Markdown report: how both binaries were made, one row
// per run, warnings, the details of every run that differs or fails, and
// the summary line last.
func report(h header, results []*result) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# acfcd equivalence check\n\n")
	fmt.Fprintf(&b, "- old: %s: `%s`\n", h.old.from, h.old.how)
	fmt.Fprintf(&b, "- new: %s: `%s`\n", h.new.from, h.new.how)
	fmt.Fprintf(&b, "- command: `go run ./bench/equiv %s`; %s %s/%s, %d CPUs, %s\n",
		strings.Join(h.args, " "), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		time.Now().Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "- each run: `acfcd train ARGS --report json DATA model` in a fresh directory per side "+
		"(`-v` runs: `acfcd train ARGS DATA`); data from %s (news20bin: news20 with classes 1-10 → +1, 11-20 → -1)\n", h.dataDir)
	fmt.Fprintf(&b, "- compared: exit status, sha256 of the model file, every JSON report field but seconds "+
		"(as printed), the λ path table without seconds, the cross-validation accuracy line")
	if len(h.ignore) > 0 {
		fmt.Fprintf(&b, "; not failing the run: %s", strings.Join(slices.Sorted(maps.Keys(h.ignore)), ", "))
	}
	fmt.Fprintf(&b, "\n\n")

	fmt.Fprintf(&b, "| run | args | model | iterations | epochs | operations | newton | verdict | old s | new s |\n")
	fmt.Fprintf(&b, "|---|---|---|---:|---:|---:|---:|---|---:|---:|\n")
	var oldWall, newWall time.Duration
	var identical, differ, ignored int
	for _, r := range results {
		oldWall += r.old.wall
		newWall += r.new.wall
		switch {
		case r.fails:
			differ++
		case r.ignored:
			ignored++
		default:
			identical++
		}
		fmt.Fprintf(&b, "| %s | `%s %s` | %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n",
			r.run.name, strings.Join(r.run.args, " "), r.run.dataName(), modelCell(r),
			pair(r, "iterations"), pair(r, "epochs"), pair(r, "operations"), pair(r, "newton_steps"),
			r.verdict, r.old.wall.Seconds(), r.new.wall.Seconds())
	}

	var warned []*result
	for _, r := range results {
		if len(r.warnings) > 0 {
			warned = append(warned, r)
		}
	}
	if len(warned) > 0 {
		fmt.Fprintf(&b, "\n## Warnings: runs that do not exercise what they are listed for\n\n")
		for _, r := range warned {
			fmt.Fprintf(&b, "- %s: %s\n", r.run.name, strings.Join(r.warnings, "; "))
		}
	}

	var details []*result
	for _, r := range results {
		if len(r.diffs) > 0 || r.old.exit != "0" || r.new.exit != "0" {
			details = append(details, r)
		}
	}
	if len(details) > 0 {
		fmt.Fprintf(&b, "\n## Differences and failures\n")
		for _, r := range details {
			fmt.Fprintf(&b, "\n### %s: %s\n\n", r.run.name, r.verdict)
			fmt.Fprintf(&b, "`acfcd %s`\n\n", strings.Join(commandArgs(r.run, r.run.dataName()), " "))
			for _, d := range r.diffs {
				note := ""
				if d.ignored {
					note = " (ignored)"
				}
				fmt.Fprintf(&b, "- %s%s: old `%s`, new `%s`\n", d.field, note, d.old, d.new)
			}
			for _, s := range []struct {
				name string
				o    *outcome
			}{{"old", r.old}, {"new", r.new}} {
				if s.o.exit == "0" && len(bytes.TrimSpace(s.o.stderr)) == 0 {
					continue
				}
				fmt.Fprintf(&b, "\n%s side, exit status %s, stderr (last lines):\n\n```\n%s```\n", s.name, s.o.exit, tail(s.o.stderr, 15))
			}
		}
	}

	fmt.Fprintf(&b, "\n%d runs: %d identical, %d differ", len(results), identical, differ)
	if ignored > 0 {
		fmt.Fprintf(&b, ", %d differ only in ignored fields", ignored)
	}
	fmt.Fprintf(&b, "\n\nWall time of the runs: old %.1f s, new %.1f s\n", oldWall.Seconds(), newWall.Seconds())
	return b.String()
}

func modelCell(r *result) string {
	switch {
	case r.run.kind() == cvRun:
		return "(no model) " + strings.TrimPrefix(r.new.cv, "Cross Validation ")
	case r.old.model == "" && r.new.model == "":
		return "–"
	case r.old.model == r.new.model:
		return "identical"
	}
	return "**differs**"
}

// pair shows one report field: its value, or old → new when they differ.
func pair(r *result, k string) string {
	if r.old.report == nil && r.new.report == nil {
		return "–"
	}
	a, b := field(r.old.report, k), field(r.new.report, k)
	if a == b {
		return a
	}
	return a + " → " + b
}

// tail returns the last n lines of b, each ending in a newline.
func tail(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return "(empty)\n"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}
