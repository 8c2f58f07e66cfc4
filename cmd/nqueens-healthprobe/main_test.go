package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// startHealthServer serves grpc.health.v1 on 127.0.0.1:0 with "" SERVING,
// "ready" SERVING and "draining" NOT_SERVING, and returns its address.
func startHealthServer(t *testing.T, opts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	hs := health.NewServer()
	hs.SetServingStatus("ready", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("draining", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

func TestRun(t *testing.T) {
	addr := startHealthServer(t)
	down := closedAddr(t)
	tests := []struct {
		name       string
		args       []string
		want       int
		wantStderr string // substring; "" = stderr must be empty
	}{
		{"whole server serving", []string{"--addr", addr}, 0, ""},
		{"named service serving", []string{"--addr", addr, "--service", "ready"}, 0, ""},
		{"not serving", []string{"--addr", addr, "--service", "draining"}, 1, "NOT_SERVING"},
		{"unknown service", []string{"--addr", addr, "--service", "nope"}, 1, "NotFound"},
		{"nothing listening", []string{"--addr", down, "--timeout", "1s"}, 1, down},
		{"missing addr", nil, 2, "--addr is required"},
		{"zero timeout", []string{"--addr", addr, "--timeout", "0s"}, 2, "--timeout must be positive"},
		{"stray argument", []string{"--addr", addr, "extra"}, 2, `unexpected argument "extra"`},
		{"cert without key", []string{"--addr", addr, "--tls-ca", "x", "--tls-cert", "c"}, 2, "go together"},
		{"missing CA file", []string{"--addr", addr, "--tls-ca", filepath.Join(t.TempDir(), "none.pem")}, 2, "read --tls-ca"},
		{"unknown flag", []string{"--addr", addr, "--bogus"}, 2, "healthprobe: flag provided but not defined: -bogus (see healthprobe -h)"},
		{"bad flag value", []string{"--addr", addr, "--timeout", "soon"}, 2, `invalid value "soon" for flag -timeout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got := run(tt.args, io.Discard, &stderr)
			if got != tt.want {
				t.Errorf("run(%q) = %d, want %d; stderr: %s", tt.args, got, tt.want, stderr.String())
			}
			if tt.wantStderr == "" && stderr.Len() > 0 {
				t.Errorf("run(%q) wrote %q to stderr, want nothing", tt.args, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), tt.wantStderr)
			}
			if tt.want != 0 && strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
				t.Errorf("run(%q) stderr has several lines, want one: %q", tt.args, stderr.String())
			}
		})
	}
}

// TestHelp: -h prints the whole help on stdout and exits 0; a bad flag
// prints one line and no help (it printed 20 lines).
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if got := run([]string{"-h"}, &stdout, &stderr); got != 0 || stderr.Len() > 0 {
		t.Errorf("run(-h) = %d, stderr %q; want 0 and nothing on stderr", got, stderr.String())
	}
	for _, want := range []string{"Usage: nqueens-healthprobe", "-addr", "-timeout", "-tls-server-name"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("healthprobe -h does not mention %s:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if got := run([]string{"--bogus"}, &stdout, &stderr); got != 2 || stdout.Len() > 0 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("run(--bogus) = %d, stdout %q, stderr %q; want 2, no help, one line", got, stdout.String(), stderr.String())
	}
}

// TestRunTimeout checks that a server that accepts but never answers counts
// as not serving once --timeout has passed, rather than hanging the probe.
func TestRunTimeout(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold the connection open, say nothing
		}
	}()
	var stderr bytes.Buffer
	if got := run([]string{"--addr", lis.Addr().String(), "--timeout", "300ms"}, io.Discard, &stderr); got != 1 {
		t.Fatalf("run against a silent server = %d, want 1", got)
	}
	if !strings.Contains(stderr.String(), "DeadlineExceeded") {
		t.Errorf("stderr = %q, want DeadlineExceeded", stderr.String())
	}
}

func TestRunTLS(t *testing.T) {
	dir := t.TempDir()
	caPEM, serverCert := selfSigned(t)
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := startHealthServer(t, grpc.Creds(credentials.NewServerTLSFromCert(&serverCert)))

	var stderr bytes.Buffer
	if got := run([]string{"--addr", addr, "--tls-ca", caFile}, io.Discard, &stderr); got != 0 {
		t.Errorf("run with the right CA = %d, want 0; stderr: %s", got, stderr.String())
	}
	stderr.Reset()
	if got := run([]string{"--addr", addr}, io.Discard, &stderr); got != 1 {
		t.Errorf("plaintext probe of a TLS server = %d, want 1", got)
	}
	stderr.Reset()
	if got := run([]string{"--addr", addr, "--tls-ca", caFile, "--tls-server-name", "other.example"}, io.Discard, &stderr); got != 1 {
		t.Errorf("run with a wrong server name = %d, want 1", got)
	}
}

// selfSigned makes a self-signed certificate for 127.0.0.1 and returns its
// PEM (to trust as a CA) and the key pair (for the server).
func selfSigned(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "healthprobe test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, pair
}
