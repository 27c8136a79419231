package main

import (
	"bytes"
	"compress/gzip"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goName matches the Go identifiers a command-line user should not meet
// in a message: fields of Options and Params, and the bare field names
// the library's messages use.
var goName = regexp.MustCompile(`\b(Options|Params)\.[A-Z]|\b(ZeroBased|MaxFeatures|MaxLine|Float32|MaxEpochs|RowPtr|GapTol|KeepQID|NoFallback|UnregularizedBias|Intercept)\b`)

// TestMessagesInCLIWords: the library's messages that name its Go API
// reach the user with flags instead, through the command's errors and
// warnings.
func TestMessagesInCLIWords(t *testing.T) {
	dir := t.TempDir()
	zero := writeText(t, dir, "zero.svm", "1 0:1 2:1\n-1 1:1\n")
	wide := writeText(t, dir, "wide.svm", "1 1:1 5:1\n-1 1:1\n")
	huge := writeText(t, dir, "huge.svm", "-1 1:1\n1 2147483646:1\n")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("1 1:1\n-1 1:1 2:1 3:1\n"))
	w.Close()
	long := writeText(t, dir, "long.svm.gz", gz.String())
	m := filepath.Join(dir, "m")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", zero, m}, "(--zero-based reads 0-based files)"},
		{[]string{"predict", zero, m, m + ".out"}, "(--zero-based reads 0-based files)"},
		{[]string{"train", "--max-features", "2", wide, m}, "exceeds the cap of 2 features (--max-features 5 reads this file)"},
		{[]string{"train", huge, m}, "(to train anyway, declare the size: --max-features 2147483646)"},
		{[]string{"train", "--max-line", "8", long, m}, "the limit for a stream (--max-line)"},
		{[]string{"info", "--max-line", "8", long}, "the limit for a stream (--max-line)"},
	} {
		if tc.args[0] == "predict" {
			writeText(t, dir, "m", "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n1\n-1\n")
		}
		_, _, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || goName.MatchString(err.Error()) {
			t.Errorf("%q: %v, want a message with %q and no Go names", tc.args, err, tc.want)
		}
	}
	_, stderr, err := runCmd(t, "train", "-s", "lasso", "--lambda", "0.1", "-B", "1", "-q", wide, m)
	if err != nil || stderr != "acfcd: warning: the LASSO ignores the bias and the class weights (its intercept is an option of its own)\n" {
		t.Errorf("lasso -B 1: %v, stderr %q", err, stderr)
	}
}

// TestLibraryNamesHaveFlags: the library's messages name its Go API only
// through typed errors, whose names flagNames turns into flags. A string
// constant of the library's non-test code is either such a name, with a
// flag (or one of the few the command line cannot set), or a message
// without Go names, so that a message added later cannot reach the
// command line in Go's words unnoticed.
func TestLibraryNamesHaveFlags(t *testing.T) {
	unreachable := map[string]bool{"Params.ACF": true, "CVPathOptions.FoldID": true, "lambdas": true}
	nameRE := regexp.MustCompile(`^(Params|Options|CVPathOptions|SearchOptions)\.[A-Z][A-Za-z0-9]*$`)
	root := filepath.Join("..", "..")
	var dirs []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasPrefix(rel, "bench"), strings.HasPrefix(rel, "cmd"), strings.HasPrefix(rel, "internal"),
			strings.HasPrefix(rel, "docs"), strings.HasPrefix(rel, "."), strings.HasSuffix(rel, "testdata"), strings.HasSuffix(rel, "test"):
			if rel != "." {
				return filepath.SkipDir
			}
		}
		dirs = append(dirs, path)
		return nil
	})
	fset := token.NewFileSet()
	names := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				switch {
				case err != nil:
				case nameRE.MatchString(s):
					names++
					if _, ok := flagNames[s]; !ok && !unreachable[s] {
						t.Errorf("%s: %q has no flag in flagNames", fset.Position(lit.Pos()), s)
					}
				case goName.MatchString(s) && strings.Contains(s, " "):
					t.Errorf("%s: the message %q names Go identifiers: give it a typed error", fset.Position(lit.Pos()), s)
				}
				return true
			})
		}
	}
	if names == 0 {
		t.Fatal("the scan found no parameter names")
	}
	t.Logf("%d parameter and option names", names)
}
