package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/nqueens/nqueens/auth/authtest"
)

// TestStatusOverHTTPS: --http-tls serves the status server over HTTPS
// with --tls-cert and --tls-key (the gRPC server's pair, with its embedded
// workers trusting it): a client that trusts the CA reads N=12's exact
// counts from /api/status. The flag without --http or the pair is refused.
func TestStatusOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	ca, err := authtest.NewCA("status ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, _ := ca.WriteCA(dir)
	cert, key, _ := ca.Issue(dir, "coordinator", "127.0.0.1", "localhost")
	checkUsage(t, []string{"--n", "8", "--http-tls", "--tls-cert", cert, "--tls-key", key}, "--http-tls serves the status server over HTTPS: add --http HOST:PORT")
	checkUsage(t, []string{"--n", "8", "--http-tls", "--http", "127.0.0.1:0"}, "--http-tls serves the certificate of --tls-cert and --tls-key: add both")

	logs := &lineWatcher{}
	listening := logs.on(`status server listening: addr=(\S+) https=true`)
	errR, errW := io.Pipe()
	go logs.run(errR)
	code := make(chan int, 1)
	go func() {
		defer errW.Close()
		code <- run(context.Background(), []string{"--n", "12", "--workers", "2", "--http", "127.0.0.1:0", "--http-tls",
			"--tls-cert", cert, "--tls-key", key, "--json", "--progress", "off"}, io.Discard, errW)
	}()
	var addr string
	select {
	case m := <-listening:
		addr = m[1]
	case c := <-code:
		t.Fatalf("coordinator exited %d before its status server listened:\n%s", c, logs)
	case <-time.After(statusTestTimeout):
		t.Fatalf("no https status server in the logs:\n%s", logs)
	}
	pem, _ := os.ReadFile(caFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c := &http.Client{Timeout: statusTestTimeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	var st struct {
		Done  bool
		Exact struct{ Solutions, Unique string }
	}
	for deadline := time.Now().Add(statusTestTimeout); !st.Done && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := c.Get("https://" + addr + "/api/status")
		if err != nil {
			t.Fatalf("GET https://%s/api/status: %v", addr, err)
		}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
	}
	if !st.Done || st.Exact.Solutions != "14200" || st.Exact.Unique != "1787" {
		t.Errorf("/api/status over https: %+v, want done with 14200 and 1787", st)
	}
	if c := <-code; c != 0 {
		t.Errorf("coordinator exited %d:\n%s", c, logs)
	}
}
