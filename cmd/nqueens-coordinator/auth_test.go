package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/nqueens/nqueens/auth/authtest"
)

// TestTokenAndMutualTLS: with --token and mutual TLS the embedded workers
// still join: they dial loopback with the same token, trust the CA and
// present the server's certificate. (cmd/nqueens-worker's tests check that a worker
// with a wrong or missing token is refused.)
func TestTokenAndMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, err := authtest.NewCA("test ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, err := ca.WriteCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.Issue(dir, "coordinator", "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	secure := []string{"--token", "s3cret-token", "--tls-cert", cert, "--tls-key", key, "--tls-ca", caFile, "--log-level", "off"}

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"--n", "10", "--workers", "2", "--json"}, secure...), &stdout, &stderr)
	var got struct{ Solutions uint64 }
	if code != 0 || json.Unmarshal(stdout.Bytes(), &got) != nil || got.Solutions != 724 {
		t.Fatalf("secure embedded run: exit %d, stdout %q, stderr %q; want 724 solutions", code, stdout.String(), stderr.String())
	}

}
