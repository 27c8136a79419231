package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

var mod = module{dir: "/m", path: "github.com/acfcd/acfcd"}

// source is the text of the module's lines in the samples below.
func source(rel string, n int) string {
	return map[string]string{
		"solver/scan.go:58":     "\t\tww += x * x",
		"internal/fmath/f.go:3": "\treturn math.FMA(x, y, z) // fused on purpose",
		"acf/prefs.go:211":      "\tr := (1-p.eta)*p.rbar + p.eta*gain",
	}[fmt.Sprintf("%s:%d", rel, n)]
}

// A sample of go tool objdump for arm64, and what go tool addr2line says
// of its addresses.
const objdumpSample = `TEXT github.com/acfcd/acfcd/solver.Primal(SB) /m/solver/scan.go
  scan.go:55		0x1000			f9400000		MOVD 0(R0), R0		
  scan.go:58		0x1004			1f420020		FMADDD F2, F0, F1, F0	
  scan.go:58		0x1008			1e602800		FADDD F0, F1, F1	
  generic.go:40		0x100c			1f420021		FMADDD F2, F0, F1, F1	
  fastlog2.go:26	0x1010			1f420022		FMSUBD F2, F0, F1, F0	
  f.go:3		0x1014			1f620023		FNMSUBD F2, F0, F1, F0	
  prefs.go:211		0x1018			1f420024		FMADDD F2, F0, F1, F0	
  scan.go:58		0x101c			1f420020		FMADDD F2, F0, F1, F0	

TEXT runtime.main(SB) /usr/local/go/src/runtime/proc.go
  proc.go:150		0x2000			d503201f		NOOP			
`

const addr2lineSample = `github.com/acfcd/acfcd/solver.Primal
/m/solver/scan.go:55
github.com/acfcd/acfcd/solver.Primal
/m/solver/scan.go:58
github.com/acfcd/acfcd/solver.Primal
/m/solver/scan.go:58
github.com/acfcd/acfcd/solver.Primal
/m/kernel/generic.go:40
github.com/acfcd/acfcd/solver.Primal
/usr/local/go/src/runtime/fastlog2.go:26
github.com/acfcd/acfcd/solver.Primal
/m/internal/fmath/f.go:3
github.com/acfcd/acfcd/solver.Primal
github.com/acfcd/acfcd/acf/prefs.go:211
github.com/acfcd/acfcd/solver.Primal
/m/solver/scan.go:58
runtime.main
/usr/local/go/src/runtime/proc.go:150
`

func TestObjdump(t *testing.T) {
	addrs, ops, err := parseObjdump(strings.NewReader(objdumpSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) != 9 || addrs[1] != "0x1004" || ops[1] != "FMADDD" || ops[8] != "NOOP" {
		t.Fatalf("parseObjdump: %v %v", addrs, ops)
	}
	insts, err := parseAddr2line(strings.NewReader(addr2lineSample), ops)
	if err != nil {
		t.Fatal(err)
	}
	r := check(insts, "arm64", mod, source)
	// The kernel's and the runtime's are not ours; math.FMA's line is
	// allowed; a trimmed path (-trimpath) is the module's too; a line
	// fused twice is listed once.
	want := []string{"acf/prefs.go:211: FMADDD", "solver/scan.go:58: FMADDD"}
	if got := strs(r.bad); !slices.Equal(got, want) {
		t.Errorf("bad = %q, want %q", got, want)
	}
	if got := strs(r.allowed); !slices.Equal(got, []string{"internal/fmath/f.go:3: FNMSUBD"}) {
		t.Errorf("allowed = %q", got)
	}
	if r.insts != 9 || r.fused != 6 || r.lines != 4 {
		t.Errorf("insts, fused, lines = %d, %d, %d; want 9, 6, 4", r.insts, r.fused, r.lines)
	}
	if _, err := parseAddr2line(strings.NewReader(addr2lineSample), ops[:8]); err == nil {
		t.Error("parseAddr2line: no error for more answers than addresses")
	}
}

// A sample of the compiler's -S listing for amd64 GOAMD64=v3.
const listingSample = `# github.com/acfcd/acfcd/solver
github.com/acfcd/acfcd/solver.Primal STEXT size=91 args=0x10 locals=0x0 funcid=0x0 align=0x0
	0x0000 00000 (/m/solver/scan.go:55)	TEXT	github.com/acfcd/acfcd/solver.Primal(SB), ABIInternal, $0-16
	0x0022 00034 (/m/solver/scan.go:58)	VFMADD231SD	X1, X0, X2
	0x0026 00038 (<unknown line number>)	NOP
	0x002a 00042 (/m/kernel/generic.go:40)	VFMADD231SD	X1, X1, X0
	0x002f 00047 (/m/internal/fmath/f.go:3)	VFMADD231SD	X3, X2, X1
	0x0034 00052 (/m/solver/scan.go:60)	ADDSD	X1, X0
	0x0038 00056 (/m/solver/scan.go:60)	MULSD	X1, X0
	0x0000 c4 e2 e9 b9 c1 f2 0f 58 c1 c3                    ..........
	rel 5+4 t=R_CALL runtime.morestack_noctxt+0
`

func TestListing(t *testing.T) {
	insts, err := parseListing(strings.NewReader(listingSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 6 || insts[1] != (inst{"VFMADD231SD", "/m/solver/scan.go", 58}) {
		t.Fatalf("parseListing: %v", insts)
	}
	r := check(insts, "amd64", mod, source)
	if got := strs(r.bad); !slices.Equal(got, []string{"solver/scan.go:58: VFMADD231SD"}) {
		t.Errorf("bad = %q", got)
	}
	if got := strs(r.allowed); !slices.Equal(got, []string{"internal/fmath/f.go:3: VFMADD231SD"}) {
		t.Errorf("allowed = %q", got)
	}
	if r.lines != 4 || r.fused != 3 {
		t.Errorf("lines, fused = %d, %d; want 4, 3", r.lines, r.fused)
	}
}

func TestFusedOp(t *testing.T) {
	for goarch, ops := range map[string]map[string]bool{
		"arm64": {"FMADDD": true, "FMSUBS": true, "FNMADDD": true, "FNMSUBS": true, "VFMLA": true,
			"FMULD": false, "FADDD": false, "FNMULD": false, "FMADD": false, "MADD": false},
		"amd64": {"VFMADD231SD": true, "VFNMSUB213PD": true, "VFMADDSUB231PD": true, "VFMSUB132SS": true,
			"MULSD": false, "ADDSD": false, "VMULSD": false},
	} {
		for op, want := range ops {
			if got := fusedOp[goarch].MatchString(op); got != want {
				t.Errorf("%s: fusedOp(%s) = %v", goarch, op, got)
			}
		}
	}
}

func strs(fs []finding) []string {
	var s []string
	for _, f := range fs {
		s = append(s, f.String())
	}
	return s
}
