package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/version"
)

func TestVersionFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("coordinator --version = %d, want 0; stderr: %s", code, stderr.String())
	}
	if got, want := stdout.String(), version.String("coordinator")+"\n"; got != want {
		t.Errorf("coordinator --version printed %q, want %q", got, want)
	}
	if stderr.Len() != 0 {
		t.Errorf("coordinator --version wrote %q to stderr, want nothing", stderr.String())
	}
}

// TestVersionNamesRevision builds the real binary with VCS stamping (the
// house's GOFLAGS turn it off) and checks --version names the commit.
func TestVersionNamesRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git work tree to stamp from: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "coordinator")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	if info, err := exec.Command("go", "version", "-m", bin).Output(); err != nil || !strings.Contains(string(info), "vcs.revision") {
		// The go command finds a repository only where .git is a directory,
		// not in a `git worktree` (whose .git is a file).
		t.Skipf("go build did not stamp a revision here (a git worktree?): %v", err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("coordinator --version: %v", err)
	}
	if short := strings.TrimSpace(string(rev))[:12]; !strings.Contains(string(out), "rev "+short) {
		t.Errorf("coordinator --version = %q, want it to name rev %s", out, short)
	}
}
