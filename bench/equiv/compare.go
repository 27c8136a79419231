package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// reportFields is the order of acfcd's --report json fields in the report;
// any other field is compared too and listed after them.
var reportFields = []string{"solver", "select", "C", "eps", "iterations", "epochs", "operations",
	"seconds", "objective", "primal", "gap", "violation", "nnz_w", "converged", "hit_epoch_cap", "newton_steps"}

// timeFields are never compared: they measure the machine, not the solver.
var timeFields = map[string]bool{"seconds": true}

// outcome is what one binary did on one run.
type outcome struct {
	exit   string // "0", "1", ..., or how the process ended otherwise
	stdout []byte
	stderr []byte
	model  string                     // sha256 of the model file, "" if none was written
	report map[string]json.RawMessage // the --report json object, nil if none
	cv     string                     // the cross-validation lines
	text   []string                   // all of stdout (textRun)
	path   []string                   // the λ path table without its seconds column
	wall   time.Duration
}

// execute runs bin train with the run's arguments in a fresh directory.
func execute(ctx context.Context, bin string, r run, data string, timeout time.Duration) (*outcome, error) {
	dir, err := os.MkdirTemp("", "acfcd-equiv-run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := commandArgs(r, data)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	o := &outcome{wall: time.Since(start), stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
		o.exit = "0"
	case ctx.Err() == context.DeadlineExceeded:
		o.exit = "timeout after " + timeout.String()
	case errors.As(err, &ee) && ee.Exited():
		o.exit = strconv.Itoa(ee.ExitCode())
	case errors.As(err, &ee):
		o.exit = ee.String()
	default:
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "model")); err == nil {
		sum := sha256.Sum256(b)
		o.model = hex.EncodeToString(sum[:])
	}
	switch r.kind() {
	case cvRun:
		o.cv = cvLine(o.stdout)
	case textRun:
		o.text = strings.Split(strings.TrimRight(string(o.stdout), "\n"), "\n")
	case pathRun:
		o.path = pathTable(o.stdout)
		o.report = jsonReport(o.stdout)
	default:
		o.report = jsonReport(o.stdout)
	}
	return o, nil
}

// commandArgs is the acfcd command line of a run: train, its arguments,
// --report json when it trains a model, DATA and MODEL.
func commandArgs(r run, data string) []string {
	args := append([]string{"train"}, r.args...)
	switch r.kind() {
	case cvRun:
		return append(args, data)
	case textRun:
		return append(args, data, "model")
	}
	return append(args, "--report", "json", data, "model")
}

// jsonReport parses the last non-empty line of stdout as the JSON report,
// keeping each value's text as printed.
func jsonReport(stdout []byte) map[string]json.RawMessage {
	lines := bytes.Split(bytes.TrimRight(stdout, "\n"), []byte("\n"))
	last := bytes.TrimSpace(lines[len(lines)-1])
	var m map[string]json.RawMessage
	if !bytes.HasPrefix(last, []byte("{")) || json.Unmarshal(last, &m) != nil {
		return nil
	}
	return m
}

// cvLine returns the cross-validation lines: the accuracy, or the mean
// squared error and squared correlation of a regression.
func cvLine(stdout []byte) string {
	var out []string
	for l := range strings.SplitSeq(string(stdout), "\n") {
		if strings.HasPrefix(l, "Cross Validation ") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "; ")
}

// pathTable returns the lines of the printed λ path (header and one row per
// λ) with the seconds column removed and the spacing normalised.
func pathTable(stdout []byte) []string {
	var out []string
	drop := -1
	for l := range strings.SplitSeq(string(stdout), "\n") {
		f := strings.Fields(l)
		if drop < 0 {
			if len(f) > 1 && f[0] == "k" && f[1] == "lambda" {
				drop = slices.Index(f, "seconds")
				out = append(out, strings.Join(slices.Delete(f, drop, drop+1), " "))
			}
			continue
		}
		if _, err := strconv.Atoi(f0(f)); err != nil || len(f) <= drop {
			break // the table ends at the first line that is not a row
		}
		out = append(out, strings.Join(slices.Delete(f, drop, drop+1), " "))
	}
	return out
}

func f0(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// diff is one compared item that is not the same on both sides.
type diff struct {
	field    string
	old, new string
	ignored  bool // listed in -ignore: reported, does not fail the run
}

// compareReports compares two JSON reports field by field on the raw text
// of each value, so floats compare bit for bit as printed. Time fields are
// skipped.
func compareReports(a, b map[string]json.RawMessage, ignore map[string]bool) []diff {
	if a == nil && b == nil {
		return nil
	}
	if a == nil || b == nil {
		return []diff{{field: "report", old: present(a != nil), new: present(b != nil), ignored: ignore["report"]}}
	}
	var ds []diff
	for _, k := range fieldOrder(a, b) {
		if timeFields[k] {
			continue
		}
		va, oka := a[k]
		vb, okb := b[k]
		ta, tb := rawText(va, oka), rawText(vb, okb)
		if ta != tb {
			ds = append(ds, diff{field: k, old: ta, new: tb, ignored: ignore[k]})
		}
	}
	return ds
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return "missing"
}

// field is the text of one report field, "(missing)" if absent.
func field(m map[string]json.RawMessage, k string) string {
	v, ok := m[k]
	return rawText(v, ok)
}

func rawText(v json.RawMessage, ok bool) string {
	if !ok {
		return "(missing)"
	}
	return string(bytes.TrimSpace(v))
}

// fieldOrder lists the keys of a and b: the known fields first, then the
// others sorted.
func fieldOrder(a, b map[string]json.RawMessage) []string {
	keys := slices.Clone(reportFields)
	var extra []string
	for _, m := range []map[string]json.RawMessage{a, b} {
		for k := range m {
			if !slices.Contains(keys, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	keys = append(keys, extra...)
	return slices.DeleteFunc(keys, func(k string) bool {
		_, ina := a[k]
		_, inb := b[k]
		return !ina && !inb
	})
}

// compareTables compares two path tables line by line and reports the
// first line that differs.
func compareTables(a, b []string, ignore map[string]bool) []diff {
	for i := range max(len(a), len(b)) {
		la, lb := "(missing)", "(missing)"
		if i < len(a) {
			la = a[i]
		}
		if i < len(b) {
			lb = b[i]
		}
		if la != lb {
			return []diff{{field: "path", old: la, new: lb, ignored: ignore["path"]}}
		}
	}
	return nil
}

// compare lists everything that differs between two outcomes of one run.
// The exit status and the model always count; other fields can be ignored.
func compare(a, b *outcome, ignore map[string]bool) []diff {
	var ds []diff
	if a.exit != b.exit {
		ds = append(ds, diff{field: "exit", old: a.exit, new: b.exit})
	}
	if a.model != b.model {
		ds = append(ds, diff{field: "model", old: short(a.model), new: short(b.model)})
	}
	if a.cv != b.cv {
		ds = append(ds, diff{field: "cv", old: a.cv, new: b.cv, ignored: ignore["cv"]})
	}
	ds = append(ds, compareTables(a.path, b.path, ignore)...)
	if d := compareTables(a.text, b.text, ignore); d != nil {
		d[0].field, d[0].ignored = "stdout", ignore["stdout"]
		ds = append(ds, d...)
	}
	ds = append(ds, compareReports(a.report, b.report, ignore)...)
	return ds
}

func short(sha string) string {
	if sha == "" {
		return "(no model)"
	}
	return "sha256 " + sha[:12]
}

// verdict sums up the diffs: whether the run fails and the text for the
// report.
func verdict(ds []diff) (fails bool, onlyIgnored bool, text string) {
	var failing, ignored []string
	for _, d := range ds {
		if d.ignored {
			ignored = append(ignored, d.field)
		} else {
			failing = append(failing, d.field)
		}
	}
	switch {
	case len(failing) > 0:
		text = "DIFFERS: " + strings.Join(failing, ", ")
		if len(ignored) > 0 {
			text += " (ignored: " + strings.Join(ignored, ", ") + ")"
		}
		return true, false, text
	case len(ignored) > 0:
		return false, true, "identical except ignored: " + strings.Join(ignored, ", ")
	}
	return false, false, "identical"
}

// check returns a warning when a run does not exercise what it is in the
// list for, judged from one side's report.
func check(r run, o *outcome) string {
	if o.exit != "0" {
		return fmt.Sprintf("exit status %s", o.exit)
	}
	switch r.kind() {
	case cvRun:
		if o.cv == "" {
			return "no cross-validation line"
		}
		return ""
	case textRun:
		if len(o.text) < 2 {
			return "no output"
		}
		return ""
	}
	if o.report == nil {
		return "no JSON report"
	}
	switch r.expect {
	case finisher:
		if field(o.report, "newton_steps") == "0" {
			return "newton_steps = 0: no finisher took over"
		}
	case epochCap:
		if field(o.report, "hit_epoch_cap") != "true" {
			return "hit_epoch_cap is not true: the epoch cap was not reached"
		}
	}
	return ""
}
