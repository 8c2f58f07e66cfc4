package auth

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/peer"

	"github.com/nqueens/nqueens/auth/authtest"
)

// copyFile replaces dst with src's content, as a renewal does.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// servedName dials addr anew (one connection, one handshake) with mutual
// TLS and returns the common name of the certificate the server showed.
func servedName(t *testing.T, addr string, cfg Config) string {
	t.Helper()
	conn := dialCfg(t, addr, cfg)
	defer conn.Close()
	var p peer.Peer
	if _, err := testgrpc.NewTestServiceClient(conn).EmptyCall(ctxT(t), &testgrpc.Empty{}, grpc.Peer(&p)); err != nil {
		t.Fatalf("EmptyCall: %v", err)
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.PeerCertificates) == 0 {
		t.Fatalf("no TLS peer certificate: %#v", p.AuthInfo)
	}
	return info.State.PeerCertificates[0].Subject.CommonName
}

// TestCertificateReload: a coordinator's certificate renewed on disk is
// served from the next handshake on, without a restart; a half-written
// renewal leaves the good one in service. The worker's client certificate
// goes through a KeyPair too: mutual TLS goes on after both renew.
func TestCertificateReload(t *testing.T) {
	old := ReloadCheck
	ReloadCheck = 0 // look at the files on every handshake
	t.Cleanup(func() { ReloadCheck = old })
	dir, next := t.TempDir(), t.TempDir()
	ca, err := authtest.NewCA("reload ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, _ := ca.WriteCA(dir)
	cert, key, _ := ca.Issue(dir, "coordinator-1", "127.0.0.1")
	ccert, ckey, _ := ca.Issue(dir, "worker-1", "worker")
	addr := serve(t, Config{CertFile: cert, KeyFile: key, CAFile: caFile})
	client := Config{CAFile: caFile, CertFile: ccert, KeyFile: ckey}
	if got := servedName(t, addr, client); got != "coordinator-1" {
		t.Fatalf("served %q, want coordinator-1", got)
	}
	// The renewal: new pairs written over the old files.
	cert2, key2, _ := ca.Issue(next, "coordinator-2", "127.0.0.1")
	ccert2, ckey2, _ := ca.Issue(next, "worker-2", "worker")
	copyFile(t, cert2, cert)
	copyFile(t, key2, key)
	copyFile(t, ccert2, ccert)
	copyFile(t, ckey2, ckey)
	if got := servedName(t, addr, client); got != "coordinator-2" {
		t.Errorf("after the renewal the server showed %q, want coordinator-2", got)
	}
	// Half-written: a certificate without its key. The old pair stays.
	cert3, _, _ := ca.Issue(next, "coordinator-3", "127.0.0.1")
	copyFile(t, cert3, cert)
	if got := servedName(t, addr, client); got != "coordinator-2" {
		t.Errorf("with a certificate that does not match its key the server showed %q, want coordinator-2 still", got)
	}
}

// TestKeyPairErrors: a pair that does not load at the start is an error
// naming the file; later, LastError says why a reload was skipped.
func TestKeyPairErrors(t *testing.T) {
	old := ReloadCheck
	ReloadCheck = 0
	t.Cleanup(func() { ReloadCheck = old })
	dir := t.TempDir()
	if _, err := LoadKeyPair(filepath.Join(dir, "none.pem"), filepath.Join(dir, "none-key.pem")); err == nil {
		t.Error("LoadKeyPair of missing files = nil error")
	}
	ca, _ := authtest.NewCA("ca")
	cert, key, _ := ca.Issue(dir, "a", "127.0.0.1")
	kp, err := LoadKeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	first := kp.Certificate()
	os.WriteFile(key, []byte("not a key"), 0o600)
	if kp.Certificate() != first || kp.LastError() == nil || kp.Reloads() != 0 {
		t.Errorf("after a broken key: same pair %v, LastError %v, %d reloads; want the old pair, an error, 0", kp.Certificate() == first, kp.LastError(), kp.Reloads())
	}
}

// TestCAReload: a coordinator with mutual TLS refuses workers whose
// certificates a new CA signed until its CA file names that CA too; then
// it takes them from the next handshake on, and still the old CA's.
func TestCAReload(t *testing.T) {
	old := ReloadCheck
	ReloadCheck = 0
	t.Cleanup(func() { ReloadCheck = old })
	dir := t.TempDir()
	caA, _ := authtest.NewCA("ca a")
	caB, _ := authtest.NewCA("ca b")
	fileA, _ := caA.WriteCA(dir)
	fileB, _ := caB.WriteCA(dir)
	bundle := filepath.Join(dir, "bundle.pem")
	copyFile(t, fileA, bundle)
	cert, key, _ := caA.Issue(dir, "coordinator", "127.0.0.1")
	certA, keyA, _ := caA.Issue(dir, "worker-a", "worker")
	certB, keyB, _ := caB.Issue(dir, "worker-b", "worker")
	addr := serve(t, Config{CertFile: cert, KeyFile: key, CAFile: bundle})
	call := func(c, k string) error {
		conn := dialCfg(t, addr, Config{CAFile: fileA, CertFile: c, KeyFile: k})
		defer conn.Close()
		_, err := testgrpc.NewTestServiceClient(conn).EmptyCall(ctxT(t), &testgrpc.Empty{})
		return err
	}
	if err := call(certA, keyA); err != nil {
		t.Fatalf("worker of CA a: %v", err)
	}
	if err := call(certB, keyB); err == nil {
		t.Fatal("worker of CA b accepted before its CA was in the file")
	}
	a, _ := os.ReadFile(fileA)
	b, _ := os.ReadFile(fileB)
	if err := os.WriteFile(bundle, append(a, b...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := call(certB, keyB); err != nil {
		t.Errorf("worker of CA b after the bundle named it: %v", err)
	}
	if err := call(certA, keyA); err != nil {
		t.Errorf("worker of CA a after the bundle grew: %v", err)
	}
}
