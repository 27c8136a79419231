package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// server is a long-lived Rscript or python process that holds one data
// set in memory and answers one command line with one reply line, so that
// its parsing is done once and not timed, and its fits can be interleaved
// with acfcd's. A command past its deadline kills the process; the next
// command starts it again.
type server struct {
	name  string   // "glmnet" or "sklearn"
	argv  []string // the program and its arguments
	ready map[string]string
	load  time.Duration // how long to wait for "ready"

	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	errs  *tailBuffer
}

// tailBuffer keeps the last 4 KiB written to it (a process's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func (s *server) start() error {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.errs = &tailBuffer{}
	cmd.Stderr = s.errs
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.cmd, s.in, s.lines = cmd, in, make(chan string, 1)
	go func(lines chan<- string) {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}(s.lines)
	line, ok, err := s.next(s.load)
	if err != nil || !ok {
		s.kill()
		if err == nil {
			err = fmt.Errorf("no \"ready\" line within %v", s.load)
		}
		return fmt.Errorf("%s: loading the data: %w", s.name, err)
	}
	kind, kv, err := parseReply(line)
	if err != nil || kind != "ready" {
		s.kill()
		return fmt.Errorf("%s: loading the data: unexpected %q", s.name, line)
	}
	s.ready = kv
	return nil
}

// next waits up to d for the next line. ok is false at the deadline; an
// ended process is an error carrying its stderr.
func (s *server) next(d time.Duration) (line string, ok bool, err error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l, open := <-s.lines:
		if !open {
			s.cmd.Wait()
			return "", false, fmt.Errorf("the process ended: %s", lastLines(s.errs.String(), 3))
		}
		return l, true, nil
	case <-t.C:
		return "", false, nil
	}
}

// call sends one command and returns the reply's key=value pairs.
// timedOut reports a command killed at its deadline.
func (s *server) call(ctx context.Context, command string, d time.Duration) (kv map[string]string, timedOut bool, err error) {
	if s.cmd == nil {
		if err := s.start(); err != nil {
			return nil, false, err
		}
	}
	if _, err := io.WriteString(s.in, command+"\n"); err != nil {
		s.kill()
		return nil, false, fmt.Errorf("%s: %w", s.name, err)
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		d = time.Until(dl)
	}
	line, ok, err := s.next(d)
	if err != nil {
		s.kill()
		return nil, false, fmt.Errorf("%s: %w", s.name, err)
	}
	if !ok {
		s.kill()
		return nil, true, nil
	}
	kind, kv, err := parseReply(line)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", s.name, err)
	}
	if kind != "done" {
		return nil, false, fmt.Errorf("%s: unexpected reply %q", s.name, line)
	}
	return kv, false, nil
}

func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// close ends the process politely, then by force.
func (s *server) close() {
	if s.cmd == nil {
		return
	}
	io.WriteString(s.in, "quit\n")
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// parseReply splits a reply line, "KIND key=value ..." or "error
// MESSAGE", into its kind and pairs; an "error" reply is returned as an
// error.
func parseReply(line string) (kind string, kv map[string]string, err error) {
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error"); ok && (msg == "" || msg[0] == ' ') {
		return "", nil, errors.New(strings.TrimSpace(msg))
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil, errors.New("empty reply")
	}
	kv = map[string]string{}
	for _, p := range f[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("reply %q: %q is not key=value", line, p)
		}
		kv[k] = v
	}
	return f[0], kv, nil
}

// num reads a number of a reply.
func num(kv map[string]string, key string) (float64, error) {
	s, ok := kv[key]
	if !ok {
		return 0, fmt.Errorf("reply without %s", key)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("reply's %s=%q: not a number", key, s)
	}
	return v, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// coefPath is a fitted path as the scripts write it: per λ (in the tool's
// units) the intercept and the sparse weights.
type coefPath struct {
	Lambda    []float64
	Intercept []float64
	ColPtr    []int32
	Index     []int32 // 0-based feature
	Value     []float64
}

// Len is the number of λ.
func (c *coefPath) Len() int { return len(c.Lambda) }

// readCoefPath parses the scripts' coefficient file: int32 n, float64
// lambda[n], float64 intercept[n], int32 colptr[n+1], int32 row[nnz],
// float64 x[nnz], little endian.
func readCoefPath(b []byte, features int) (*coefPath, error) {
	r := bytes.NewReader(b)
	bad := func(what string) error { return fmt.Errorf("coefficient file of %d bytes: %s", len(b), what) }
	var n int32
	if err := readLE(r, &n); err != nil || n < 0 || int64(n) > int64(len(b)) {
		return nil, bad("no valid count")
	}
	c := &coefPath{Lambda: make([]float64, n), Intercept: make([]float64, n), ColPtr: make([]int32, n+1)}
	if readLE(r, c.Lambda) != nil || readLE(r, c.Intercept) != nil || readLE(r, c.ColPtr) != nil {
		return nil, bad("truncated header")
	}
	nnz := c.ColPtr[n]
	if c.ColPtr[0] != 0 || nnz < 0 || int64(r.Len()) != int64(nnz)*12 {
		return nil, bad(fmt.Sprintf("column pointers 0..%d do not match the %d bytes left", nnz, r.Len()))
	}
	for k := range n {
		if c.ColPtr[k+1] < c.ColPtr[k] {
			return nil, bad("column pointers decrease")
		}
	}
	c.Index, c.Value = make([]int32, nnz), make([]float64, nnz)
	if readLE(r, c.Index) != nil || readLE(r, c.Value) != nil {
		return nil, bad("truncated weights")
	}
	for _, j := range c.Index {
		if j < 0 || int(j) >= features {
			return nil, bad(fmt.Sprintf("feature %d out of range 0..%d", j, features-1))
		}
	}
	return c, nil
}

func readLE(r io.Reader, v any) error { return binary.Read(r, binary.LittleEndian, v) }
