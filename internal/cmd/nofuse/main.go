// Command nofuse checks that the compiler fused no multiply and add of
// this module's code outside kernel/ into one instruction.
//
// A fused multiply-add rounds once where x*y + z rounds twice, so the
// same source gives other bits where the compiler fuses: it does on arm64
// (FMADDD, FMSUBD, FNMADDD, FNMSUBD and the S forms) and on amd64 with
// GOAMD64=v3 (VFMADD231SD, ...), never on amd64 with GOAMD64=v1. The Go
// specification lets an explicit conversion forbid it: float64(x*y) + z
// rounds the product. The kernels (kernel/) are assembly and Go twins
// with their own rules, and a line that calls math.FMA fuses on purpose.
//
// nofuse builds the command (./cmd/acfcd unless -pkg says otherwise) for
// arm64 and for amd64 GOAMD64=v3 into a temporary directory and lists
// every fused multiply-add whose source line is in this module, outside
// kernel/, and does not contain "FMA(". The arm64 binary is read with go
// tool objdump, its addresses resolved to full paths by go tool
// addr2line (objdump prints base names only, and inlined code sits in
// other files' functions). For amd64 the compiler's own listing (-gcflags
// -S of this module's packages) is read instead: go tool objdump does
// not decode VEX-encoded instructions, and prints VFMADD231SD as some
// other instruction.
//
// Usage, from the module's directory (-pkg is relative to it):
//
//	go run ./internal/cmd/nofuse [-pkg ./cmd/acfcd] [-v]
//
// It prints how many instructions and source lines it checked, and exits
// with status 1 listing file:line of every fusion found, 0 if there is
// none, 2 if a build or a tool fails.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// inst is one machine instruction and the source line it came from.
type inst struct {
	op   string
	file string // as the tool printed it: a full path, or module path/file with -trimpath
	line int
}

// fusedOp reports whether op is a fused multiply-add of goarch, in Go's
// assembler syntax.
var fusedOp = map[string]*regexp.Regexp{
	"arm64": regexp.MustCompile(`^(F(N)?M(ADD|SUB)[SD]|VFML[AS])$`),
	"amd64": regexp.MustCompile(`^VFN?M(ADD|SUB)(SUB|ADD)?(132|213|231)[PS][SD]$`),
}

// module is where the module's files are, by both names a tool may use.
type module struct {
	dir, path string
}

// rel returns file relative to the module, and whether it is in it.
func (m module) rel(file string) (string, bool) {
	for _, root := range []string{m.dir, m.path} {
		if r, ok := strings.CutPrefix(filepath.ToSlash(file), filepath.ToSlash(root)+"/"); ok {
			return r, true
		}
	}
	return "", false
}

// finding is a fused instruction on a line of the module.
type finding struct {
	rel  string // file relative to the module
	line int
	op   string
}

func (f finding) String() string { return fmt.Sprintf("%s:%d: %s", f.rel, f.line, f.op) }

// report is what check found in one binary.
type report struct {
	insts   int       // instructions read
	lines   int       // distinct source lines of the module outside kernel/
	fused   int       // fused multiply-adds anywhere (the standard library's too)
	bad     []finding // on module lines outside kernel/ without "FMA("
	allowed []finding // on lines with "FMA("
}

// check sorts the fused multiply-adds of insts. source returns the text
// of line n of a file of the module (relative path).
func check(insts []inst, goarch string, m module, source func(rel string, n int) string) report {
	var r report
	seen := map[string]bool{}
	found := map[finding]bool{}
	for _, in := range insts {
		r.insts++
		rel, ok := m.rel(in.file)
		inMod := ok && !strings.HasPrefix(rel, "kernel/")
		key := rel + ":" + strconv.Itoa(in.line)
		if inMod && !seen[key] {
			seen[key] = true
			r.lines++
		}
		if !fusedOp[goarch].MatchString(in.op) {
			continue
		}
		r.fused++
		if !inMod {
			continue
		}
		f := finding{rel, in.line, in.op}
		if found[f] {
			continue
		}
		found[f] = true
		if strings.Contains(source(rel, in.line), "FMA(") {
			r.allowed = append(r.allowed, f)
		} else {
			r.bad = append(r.bad, f)
		}
	}
	cmp := func(a, b finding) int {
		return strings.Compare(fmt.Sprintf("%s:%08d:%s", a.rel, a.line, a.op), fmt.Sprintf("%s:%08d:%s", b.rel, b.line, b.op))
	}
	slices.SortFunc(r.bad, cmp)
	slices.SortFunc(r.allowed, cmp)
	return r
}

// parseObjdump returns the address and mnemonic of every instruction in
// go tool objdump's output:
//
//	TEXT main.f(SB) /path/to/f.go
//	  f.go:12	0x10a0c	1f420020	FMADDD F2, F0, F1, F0
func parseObjdump(r io.Reader) (addrs, ops []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		t := sc.Text()
		if !strings.HasPrefix(t, "  ") {
			continue
		}
		f := strings.Fields(t)
		if len(f) < 4 || !strings.HasPrefix(f[1], "0x") {
			continue
		}
		addrs = append(addrs, f[1])
		ops = append(ops, f[3])
	}
	return addrs, ops, sc.Err()
}

// parseAddr2line pairs go tool addr2line's answers (a function line and a
// file:line line per address) with the mnemonics.
func parseAddr2line(r io.Reader, ops []string) ([]inst, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	insts := make([]inst, 0, len(ops))
	for i := 0; sc.Scan(); i++ {
		if i%2 == 0 {
			continue // the function
		}
		t := sc.Text()
		k := strings.LastIndexByte(t, ':')
		if k < 0 {
			return nil, fmt.Errorf("addr2line: unexpected line %q", t)
		}
		n, err := strconv.Atoi(t[k+1:])
		if err != nil {
			return nil, fmt.Errorf("addr2line: unexpected line %q", t)
		}
		if len(insts) == len(ops) {
			return nil, fmt.Errorf("addr2line: more answers than addresses")
		}
		insts = append(insts, inst{ops[len(insts)], t[:k], n})
	}
	if len(insts) != len(ops) {
		return nil, fmt.Errorf("addr2line: %d answers for %d addresses", len(insts), len(ops))
	}
	return insts, sc.Err()
}

// listingLine is an instruction of the compiler's -S listing:
//
//	0x0022 00034 (/path/to/f.go:13)	VFMADD231SD	X1, X0, X2
var listingLine = regexp.MustCompile(`^\s+0x[0-9a-f]+ \d+ \((.+):(\d+)\)\s+(\S+)`)

// parseListing returns the instructions of the compiler's -S output.
func parseListing(r io.Reader) ([]inst, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var insts []inst
	for sc.Scan() {
		m := listingLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		insts = append(insts, inst{m[3], m[1], n})
	}
	return insts, sc.Err()
}

// sourceLines reads the module's files once each.
func sourceLines(dir string) func(rel string, n int) string {
	files := map[string][]string{}
	return func(rel string, n int) string {
		lines, ok := files[rel]
		if !ok {
			b, _ := os.ReadFile(filepath.Join(dir, rel))
			lines = strings.Split(string(b), "\n")
			files[rel] = lines
		}
		if n < 1 || n > len(lines) {
			return ""
		}
		return lines[n-1]
	}
}

// run runs a go command with extra environment, returning its standard
// output; its standard error goes to stderr unless stderr is nil.
func run(env []string, stdin io.Reader, stderr io.Writer, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes(), nil
}

// arm64Insts builds pkg for arm64 and reads the binary.
func arm64Insts(tmp, pkg string) ([]inst, error) {
	bin := filepath.Join(tmp, "arm64")
	if _, err := run([]string{"GOOS=linux", "GOARCH=arm64"}, nil, nil, "build", "-o", bin, pkg); err != nil {
		return nil, err
	}
	dis, err := run(nil, nil, nil, "tool", "objdump", bin)
	if err != nil {
		return nil, err
	}
	addrs, ops, err := parseObjdump(bytes.NewReader(dis))
	if err != nil {
		return nil, err
	}
	lines, err := run(nil, strings.NewReader(strings.Join(addrs, "\n")+"\n"), nil, "tool", "addr2line", bin)
	if err != nil {
		return nil, err
	}
	return parseAddr2line(bytes.NewReader(lines), ops)
}

// amd64Insts builds pkg for amd64 GOAMD64=v3 and reads the listing of the
// module's packages (replayed from the build cache when they are cached).
func amd64Insts(tmp, pkg string, m module) ([]inst, error) {
	var listing bytes.Buffer
	_, err := run([]string{"GOOS=linux", "GOARCH=amd64", "GOAMD64=v3"}, nil, &listing,
		"build", "-o", filepath.Join(tmp, "amd64v3"), "-gcflags="+m.path+"/...=-S", pkg)
	if err != nil {
		return nil, fmt.Errorf("%v%s", err, listing.Bytes())
	}
	return parseListing(&listing)
}

func main() {
	pkg := flag.String("pkg", "./cmd/acfcd", "the `package` to build")
	verbose := flag.Bool("v", false, "also list the fusions allowed on lines with FMA(")
	flag.Parse()
	out, err := run(nil, nil, nil, "list", "-m", "-f", "{{.Dir}}\n{{.Path}}")
	if err != nil {
		fail(err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		fail(fmt.Errorf("go list -m: %q", out))
	}
	m := module{f[0], f[1]}
	if err := os.Chdir(m.dir); err != nil { // -pkg is relative to the module
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "nofuse")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	source := sourceLines(m.dir)
	targets := []struct {
		goarch, name string
		insts        func() ([]inst, error)
	}{
		{"arm64", "arm64 (go tool objdump)", func() ([]inst, error) { return arm64Insts(tmp, *pkg) }},
		{"amd64", "amd64 GOAMD64=v3 (compiler listing)", func() ([]inst, error) { return amd64Insts(tmp, *pkg, m) }},
	}
	bad := 0
	for _, t := range targets {
		insts, err := t.insts()
		if err != nil {
			os.RemoveAll(tmp)
			fail(err)
		}
		r := check(insts, t.goarch, m, source)
		for _, f := range r.bad {
			fmt.Printf("%s (%s)\n", f, t.goarch)
		}
		if *verbose {
			for _, f := range r.allowed {
				fmt.Printf("%s (%s, allowed)\n", f, t.goarch)
			}
		}
		fmt.Printf("nofuse: %s: checked %d instructions, %d source lines of %s outside kernel/; %d fused multiply-adds, %d of them on those lines, %d of these on lines with FMA(\n",
			t.name, r.insts, r.lines, m.path, r.fused, len(r.bad)+len(r.allowed), len(r.allowed))
		bad += len(r.bad)
	}
	if bad > 0 {
		fmt.Printf("nofuse: %d fused multiply-adds to remove: write float64(x*y) + z\n", bad)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nofuse:", err)
	os.Exit(2)
}
