package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// machine describes where the benchmark ran.
type machine struct {
	CPU        string // cpuid brand string
	Physical   int    // physical cores (cpuid; 0 if unknown)
	Logical    int    // logical cores (cpuid; 0 if unknown)
	NumCPU     int    // runtime.NumCPU: the CPUs this process may use
	GOMAXPROCS int
	Go         string
	OS, Arch   string
	Load       string // /proc/loadavg at start ("" if unknown)
}

func machineInfo() machine {
	m := machine{CPU: strings.TrimSpace(cpuid.CPU.BrandName), Physical: cpuid.CPU.PhysicalCores,
		Logical: cpuid.CPU.LogicalCores, NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if m.CPU == "" {
		m.CPU = "unknown CPU"
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	return m
}

// Line is the machine line of the Markdown report.
func (m machine) Line() string {
	cores := fmt.Sprintf("%d CPUs", m.NumCPU)
	if m.Physical > 0 || m.Logical > 0 {
		cores = fmt.Sprintf("%d cores / %d threads (cpuid), %d CPUs usable", m.Physical, m.Logical, m.NumCPU)
	}
	s := fmt.Sprintf("%s; %s; GOMAXPROCS %d; %s %s/%s", m.CPU, cores, m.GOMAXPROCS, m.Go, m.OS, m.Arch)
	if m.Load != "" {
		s += "; load average at start " + m.Load
	}
	return s
}
