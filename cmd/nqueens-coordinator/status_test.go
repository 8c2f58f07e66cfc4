package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// statusTestTimeout bounds TestAPIStatusMatchesJSON's N=12 run (well under
// a second on two cores) and each of its waits.
const statusTestTimeout = 30 * time.Second

// TestAPIStatusMatchesJSON is the check that /api/status after a
// run equals the --json summary field for field: the real command runs
// N=12 with --http 127.0.0.1:0 --json, and /api/status is read in the
// window (statusLinger) the status server stays up after the end. Every
// field is equal, elapsed_seconds too: the job's length is fixed at its end.
func TestAPIStatusMatchesJSON(t *testing.T) {
	logs, out := &lineWatcher{}, &lineWatcher{}
	listening := logs.on(`status server listening: addr=(\S+)`)
	summary := out.on(`^(\{.*\})$`)
	errR, errW := io.Pipe()
	outR, outW := io.Pipe()
	go logs.run(errR)
	go out.run(outR)
	code := make(chan int, 1)
	go func() {
		defer errW.Close()
		defer outW.Close()
		code <- run(context.Background(), []string{"--n", "12", "--workers", "2", "--http", "127.0.0.1:0", "--json", "--progress", "off"}, outW, errW)
	}()
	var addr, jsonLine string
	select {
	case m := <-listening:
		addr = m[1]
	case <-time.After(statusTestTimeout):
		t.Fatalf("no status server address in the logs:\n%s", logs)
	}
	select {
	case m := <-summary:
		jsonLine = m[1]
	case c := <-code:
		t.Fatalf("coordinator exited %d before its --json summary:\n%s", c, logs)
	case <-time.After(statusTestTimeout):
		t.Fatalf("no --json summary on stdout:\n%s", logs)
	}
	// The summary is printed before the status server's linger begins;
	// a second into it, a clock still ticking would show in elapsed_seconds.
	time.Sleep(statusLinger / 3)
	api := getJSON(t, "http://"+addr+"/api/status")
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("coordinator exited %d:\n%s", c, logs)
		}
	case <-time.After(statusTestTimeout):
		t.Fatal("the coordinator did not exit after its status server's linger")
	}

	var want map[string]any
	if err := json.Unmarshal([]byte(jsonLine), &want); err != nil {
		t.Fatalf("--json: %v\n%s", err, jsonLine)
	}
	if want["solutions"] != 14200.0 || want["unique"] != 1787.0 || want["complete"] != true {
		t.Errorf("--json = %s, want 14200 solutions, 1787 fundamental, complete", jsonLine)
	}
	if api["done"] != true {
		t.Errorf("/api/status after the end says done = %v, want true", api["done"])
	}
	for k, w := range want {
		g, ok := api[k]
		switch {
		case !ok:
			t.Errorf("/api/status lacks --json's %q", k)
		case g != w:
			t.Errorf("/api/status %q = %v, --json %v", k, g, w)
		}
	}
}

// getJSON fetches url and decodes its JSON object.
func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	c := &http.Client{Timeout: statusTestTimeout}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return v
}
