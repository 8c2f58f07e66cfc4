package status

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/auth/authtest"
)

// TestServeTLS: the status server over HTTPS answers a client that trusts
// its CA with the exact counts, sets its login cookie Secure, refuses
// plain HTTP on the same port, and serves a renewed certificate from the
// next connection on.
func TestServeTLS(t *testing.T) {
	old := auth.ReloadCheck
	auth.ReloadCheck = 0
	t.Cleanup(func() { auth.ReloadCheck = old })
	dir, next := t.TempDir(), t.TempDir()
	ca, err := authtest.NewCA("status ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, _ := ca.WriteCA(dir)
	cert, key, _ := ca.Issue(dir, "status-1", "127.0.0.1")
	cfg, err := auth.ServerTLSConfig(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	job := newFakeJob(2)
	job.Advance()
	job.Advance()
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := ServeTLS(ctx, "127.0.0.1:0", NewHandler(job, Options{Token: auth.NewToken("tok")}), nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	pem, _ := os.ReadFile(caFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := func() *http.Client {
		return &http.Client{
			Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       10 * time.Second,
		}
	}
	resp, body := get(t, client(), "https://"+addr+"/api/status", "Authorization", "Bearer tok")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"solutions":"2279184"`) || resp.TLS.PeerCertificates[0].Subject.CommonName != "status-1" {
		t.Errorf("https /api/status: %d, %s", resp.StatusCode, body)
	}
	resp, _ = get(t, client(), "https://"+addr+"/?token=tok")
	if c := resp.Cookies(); len(c) != 1 || !c[0].Secure || !c[0].HttpOnly {
		t.Errorf("the login cookie over https: %v, want one Secure HttpOnly cookie", c)
	}
	if r, err := http.Get("http://" + addr + "/healthz"); err == nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode == 200 {
			t.Errorf("plain http on the https port answered 200: %s", b)
		}
	}
	cert2, key2, _ := ca.Issue(next, "status-2", "127.0.0.1")
	copyInto(t, cert2, cert)
	copyInto(t, key2, key)
	resp, _ = get(t, client(), "https://"+addr+"/healthz")
	if got := resp.TLS.PeerCertificates[0].Subject.CommonName; got != "status-2" {
		t.Errorf("after the renewal the status server showed %q, want status-2", got)
	}
}

func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}
