package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binary is one side's acfcd executable and where it came from.
type binary struct {
	path string
	from string // the commit (or prebuilt file) it was built from, for the report
	how  string // the commands that built it
}

// findRoot walks up from the working directory to the module's go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/acfcd/acfcd\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of github.com/acfcd/acfcd above the working directory")
		}
		dir = parent
	}
}

func git(ctx context.Context, root string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

func goBuild(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", out, "./cmd/acfcd")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v\n%s", dir, err, b)
	}
	return nil
}

// prebuilt uses a binary given with -old-bin / -new-bin.
func prebuilt(path string) (binary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return binary{}, err
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return binary{}, fmt.Errorf("%s: not an executable file", path)
	}
	return binary{path: abs, from: "prebuilt " + abs, how: "(prebuilt)"}, nil
}

// buildRev extracts rev with git archive into a fresh directory under tmp
// and builds cmd/acfcd there; the sources are removed afterwards.
func buildRev(ctx context.Context, root, rev, tmp, name string) (binary, error) {
	full, err := git(ctx, root, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return binary{}, err
	}
	short, err := git(ctx, root, "rev-parse", "--short", full)
	if err != nil {
		return binary{}, err
	}
	subject, _ := git(ctx, root, "log", "-1", "--format=%s", full)
	src, err := os.MkdirTemp(tmp, name+"-src-")
	if err != nil {
		return binary{}, err
	}
	defer os.RemoveAll(src)

	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", full)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
	var archErr, tarErr bytes.Buffer
	archive.Stderr, untar.Stderr = &archErr, &tarErr
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return binary{}, err
	}
	untar.Stdin = pipe
	if err := archive.Start(); err != nil {
		return binary{}, err
	}
	if err := untar.Run(); err != nil {
		archive.Wait()
		return binary{}, fmt.Errorf("tar -x of git archive %s: %v: %s", short, err, tarErr.String())
	}
	if err := archive.Wait(); err != nil {
		return binary{}, fmt.Errorf("git archive %s: %v: %s", short, err, archErr.String())
	}

	bin := filepath.Join(tmp, name, "acfcd")
	if err := goBuild(ctx, src, bin); err != nil {
		return binary{}, err
	}
	from := fmt.Sprintf("%s (%s %q)", rev, short, subject)
	if rev == short || strings.HasPrefix(full, rev) {
		from = fmt.Sprintf("%s %q", short, subject)
	}
	return binary{path: bin, from: from,
		how: fmt.Sprintf("git archive %s | tar -x; CGO_ENABLED=0 go build ./cmd/acfcd", short)}, nil
}

// buildWorkTree builds cmd/acfcd from the module root as it is now.
func buildWorkTree(ctx context.Context, root, tmp, name string) (binary, error) {
	head, err := git(ctx, root, "rev-parse", "--short", "HEAD")
	if err != nil {
		return binary{}, err
	}
	status, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		return binary{}, err
	}
	from := "working tree at " + head
	if status != "" {
		from += " + uncommitted changes"
	}
	bin := filepath.Join(tmp, name, "acfcd")
	if err := goBuild(ctx, root, bin); err != nil {
		return binary{}, err
	}
	return binary{path: bin, from: from, how: "CGO_ENABLED=0 go build ./cmd/acfcd (in " + root + ")"}, nil
}
