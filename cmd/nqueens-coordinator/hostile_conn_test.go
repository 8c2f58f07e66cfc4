package main

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// exitSlack is what the real coordinator may take beyond its drain
// timeout to exit on a busy 2-core machine.
const exitSlack = 3 * time.Second

// TestIdleConnectionExit: an idle TCP connection that never finishes the
// handshake does not hold the coordinator up, after SIGTERM or after the
// job ends (it delayed the exit by gRPC's 120 s handshake
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

// TestSecondSignal: while shutdown waits for an open stream (a health
// Watch here, which GracefulStop waits for until --drain-timeout), a
// second SIGTERM ends the process at once.
func TestSecondSignal(t *testing.T) {
	coordBin, _ := binaries(t)
	coord, logs, _, addr := startCoordinator(t, coordBin, nil, "--n", "18", "--workers", "0", "--drain-timeout", "1m")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	watch, err := healthpb.NewHealthClient(conn).Watch(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatalf("health watch: %v", err)
	}
	coord.Process.Signal(syscall.SIGTERM)
	time.Sleep(300 * time.Millisecond) // shutdown under way, waiting for the stream
	coord.Process.Signal(syscall.SIGTERM)
	second := time.Now()
	err = waitProcFor(coord, 10*time.Second)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("coordinator after a second SIGTERM: %v, want it ended\n%s", err, logs)
	}
	if d := time.Since(second); d > exitSlack {
		t.Errorf("coordinator ended %v after the second SIGTERM, want at once", d.Round(time.Millisecond))
	}
}
