package main

import (
	"errors"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// exitSlack is what the real coordinator may take beyond its drain
// timeout to exit on a busy 2-core machine.
const exitSlack = 3 * time.Second

// TestIdleConnectionExit: an idle TCP connection that never finishes the
// handshake does not hold the coordinator up, after SIGTERM or after the
// job ends (issue 12 D2: it delayed the exit by gRPC's 120 s handshake
// timeout, and a second signal did not help).
func TestIdleConnectionExit(t *testing.T) {
	coordBin, workBin := binaries(t)
	const drain = 500 * time.Millisecond
	t.Run("sigterm", func(t *testing.T) {
		coord, logs, _, addr := startCoordinator(t, coordBin, nil, "--n", "18", "--workers", "0", "--drain-timeout", drain.String())
		idle, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		time.Sleep(100 * time.Millisecond) // accepted
		coord.Process.Signal(syscall.SIGTERM)
		signalled := time.Now()
		err = waitProc(coord)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("coordinator after SIGTERM: %v, want exit status 1\n%s", err, logs)
		}
		if d := time.Since(signalled); d > 2*drain+exitSlack {
			t.Errorf("coordinator exited %v after SIGTERM with an idle connection open, want within the drain timeout %v", d.Round(time.Millisecond), drain)
		}
	})
	t.Run("job ends", func(t *testing.T) {
		coord, logs, _, addr := startCoordinator(t, coordBin, nil, "--n", "10", "--workers", "0", "--drain-timeout", drain.String())
		idle, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		w := exec.Command(workBin, "--join", addr, "--slots", "1")
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Process.Kill()
		start := time.Now()
		if err := waitProc(coord); err != nil {
			t.Errorf("coordinator: %v, want exit 0\n%s", err, logs)
		}
		if d := time.Since(start); d > 2*drain+exitSlack {
			t.Errorf("N=10 with an idle connection open took %v from the worker's start to the exit, want about the drain timeout %v\n%s", d.Round(time.Millisecond), drain, logs)
		}
		waitProc(w)
	})
}
