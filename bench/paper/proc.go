package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// procOut is one finished (or killed) child process.
type procOut struct {
	Stdout     string  // stdout without the start marker line
	Stderr     string  // stderr (with stdout interleaved only where the tool prints there)
	Wall       float64 // seconds from start to exit
	SinceStart float64 // seconds from the start marker (or the process start) to exit
	CPU        float64 // user + system seconds
	Started    bool    // the marker was seen (always true without a marker)
	Killed     bool    // killed at its time limit
	Stopped    bool    // killed because the harness was interrupted (Ctrl-C)
	Err        error   // exit status or start error (nil when Killed)
}

// interrupted is closed on Ctrl-C: running children are killed.
var interrupted = make(chan struct{})

// runTimed runs bin with args and stdin. Without a marker the process may
// run for budget; with one, for preStart until it prints a line equal to
// marker on stdout, and for budget from then on. A process over its
// limit is killed and reported as Killed.
func runTimed(bin string, args []string, stdin string, marker string, budget, preStart time.Duration) procOut {
	cmd := exec.Command(bin, args...)
	ownGroup(cmd)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return procOut{Err: err}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return procOut{Err: err}
	}
	var out procOut
	startedAt := start
	started := make(chan time.Time, 1)
	var stdout bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		br := bufio.NewReader(pipe)
		seen := false
		for {
			line, err := br.ReadString('\n')
			if !seen && marker != "" && strings.TrimRight(line, "\r\n") == marker {
				seen = true
				started <- time.Now()
			} else {
				stdout.WriteString(line)
			}
			if err != nil {
				if err != io.EOF {
					stdout.WriteString("\n[read error: " + err.Error() + "]")
				}
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() {
		wg.Wait() // all of stdout read before Wait closes the pipe
		waitDone <- cmd.Wait()
	}()
	limit := budget
	out.Started = marker == ""
	if marker != "" {
		limit = preStart
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case t := <-started:
			out.Started, startedAt = true, t
			timer.Reset(budget - time.Since(t))
			continue
		case <-timer.C:
			out.Killed = true
			killGroup(cmd)
			pipe.Close() // a grandchild may still hold stdout open
			<-waitDone
		case <-interrupted:
			out.Stopped = true
			killGroup(cmd)
			pipe.Close()
			<-waitDone
		case err := <-waitDone:
			out.Err = err
		}
		break
	}
	end := time.Now()
	select { // a marker printed just before a quick exit
	case t := <-started:
		out.Started, startedAt = true, t
	default:
	}
	out.Wall = end.Sub(start).Seconds()
	out.SinceStart = end.Sub(startedAt).Seconds()
	if ps := cmd.ProcessState; ps != nil {
		out.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	if out.Killed || out.Stopped {
		out.Err = nil
	}
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	return out
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
