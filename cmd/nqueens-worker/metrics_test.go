package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scrapeUntil polls url until it answers 200 and returns its body.
func scrapeUntil(t *testing.T, url string, running <-chan int) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case code := <-running:
			t.Fatalf("the worker exited %d before serving %s", code, url)
		default:
		}
		resp, err := http.Get(url)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return string(b)
		}
	}
	t.Fatalf("%s never answered", url)
	return ""
}

// TestWorkerMetrics: --http serves the worker's own /metrics while it
// waits for its coordinator (joined 0, its slots, nothing sent yet, build
// info), in a format promtool accepts; the worker then stops on its
// context with exit 0 and the server with it.
func TestWorkerMetrics(t *testing.T) {
	addr, join := freeAddr(t), refusedAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan int, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		exited <- run(ctx, []string{"--join", join, "--join-timeout", "1m", "--slots", "3", "--http", addr, "--log-level", "off"}, &stdout, &stderr)
	}()
	text := scrapeUntil(t, "http://"+addr+"/metrics", exited)
	for _, want := range []string{
		"nqueens_worker_slots 3\n", "nqueens_worker_joined 0\n", "nqueens_worker_sent_tasks_total 0\n",
		"nqueens_worker_sent_nodes_total 0\n", "nqueens_worker_running_tasks 0\n", "nqueens_worker_joins_total 0\n",
		"nqueens_build_info{", "go_goroutines ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the worker's /metrics lacks %q", want)
		}
	}
	if path, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = strings.NewReader(text)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	cancel()
	if code := <-exited; code != 0 {
		t.Errorf("the worker stopped by its context exited %d, want 0", code)
	}
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the metrics server still answers after the worker ended")
	}
}
