package status

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/auth"
)

// prometheusTimeout bounds the Prometheus test: start, a few scrapes, a
// query.
const prometheusTimeout = 60 * time.Second

// freePort returns a loopback address nobody listens on (for a program
// that wants its port on the command line).
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestPrometheusScrapes runs a real Prometheus (Debian's prometheus
// package) that scrapes /metrics with the bearer token, as a deployment
// would, and queries nqueens_solutions until it holds the exact total.
func TestPrometheusScrapes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Prometheus")
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (apt-get install prometheus): no real scrape tested")
	}
	const token = "prom-test-token"
	job := newFakeJob(3)
	target := strings.TrimPrefix(serve(t, NewHandler(job, Options{Token: auth.NewToken(token)})), "http://")
	for range 3 {
		job.Advance()
	}
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte(token), 0o600)
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: nqueens
    authorization:
      credentials_file: %s
    static_configs:
      - targets: [%q]
`, tokenFile, target)
	cfgFile := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfgFile, []byte(config), 0o644)
	web := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), prometheusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	q := "http://" + web + "/api/v1/query?query=" + url.QueryEscape(`nqueens_solutions{job="nqueens"}`)
	var last string
	for ctx.Err() == nil {
		time.Sleep(250 * time.Millisecond)
		resp, err := http.Get(q)
		if err != nil {
			continue
		}
		var r struct {
			Data struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if len(r.Data.Result) == 1 {
			last = fmt.Sprint(r.Data.Result[0].Value[1])
			if last == "2279184" {
				return
			}
		}
	}
	t.Errorf("Prometheus never saw nqueens_solutions = 2279184 (last %q); its log:\n%s", last, logs.String())
}
