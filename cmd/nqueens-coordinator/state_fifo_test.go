package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStateNotRegular: a FIFO, a directory as --state is one
// line and exit 2 at once, with --resume=auto too; a FIFO used to block
// the coordinator on its first read (11 minutes seen), deaf to SIGTERM.
func TestStateNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "j")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "10", "--resume=auto", "--state", fifo}, "--state " + fifo + " is not a regular file (a FIFO): give the path of a journal file"},
		{[]string{"--resume", "--state", fifo}, "--state " + fifo + " is not a regular file (a FIFO): give the path of a journal file"},
		{[]string{"--n", "10", "--state", fifo}, "--state " + fifo + " is not a regular file (a FIFO): give the path of a journal file"},
		{[]string{"--n", "10", "--resume=auto", "--state", dir}, "--state " + dir + " is not a regular file (a directory): give the path of a journal file"},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkUsage(t, tc.args, tc.want)
		}()
		select {
		case <-done:
		case <-time.After(e2eTimeout):
			t.Fatalf("coordinator %s: still running after %v", strings.Join(tc.args, " "), e2eTimeout)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, _, stderr := runCmd("export", "--state", fifo)
		if want := "coordinator export: --state " + fifo + " is not a regular file (a FIFO): give the path of a journal file\n"; code != 2 || stderr != want {
			t.Errorf("export --state FIFO: exit %d, %q; want 2, %q", code, stderr, want)
		}
	}()
	select {
	case <-done:
	case <-time.After(e2eTimeout):
		t.Fatalf("coordinator export --state FIFO: still running after %v", e2eTimeout)
	}
}
