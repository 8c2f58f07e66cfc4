package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		nil, {"-h"}, {"graph"}, {"dashboard"}, {"dashboard", "d.json"}, {"rules", "--url", "http://x"},
		{"dashboard", "--url", "http://x", "--var", "novalue", "d.json"},
		{"dashboard", "--url", "http://x", "--time", "yesterday", "d.json"},
		{"rules", "--url", "http://x", "a.yml", "b.yml"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		usage := strings.HasPrefix(stderr.String(), "usage: promcheck")
		if oneLine := strings.HasPrefix(stderr.String(), "promcheck") && strings.Count(stderr.String(), "\n") == 1; code != 2 || !(usage || oneLine) {
			t.Errorf("promcheck %q: exit %d, stderr %q; want 2 and the usage or one line", args, code, stderr.String())
		}
	}
}

// startPrometheus runs a real Prometheus (Debian's package) on a free
// loopback port that scrapes itself every 200 ms and evaluates the rule
// files given, and returns its address once it has scraped twice.
func startPrometheus(t *testing.T, ruleFiles ...string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not installed (CI=true: apt-get install prometheus)")
		}
		t.Skip("prometheus is not installed (apt-get install prometheus)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	config := fmt.Sprintf("global:\n  scrape_interval: 200ms\n  evaluation_interval: 200ms\nrule_files: [%s]\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: [%q]\n",
		strings.Join(ruleFiles, ", "), addr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		var out bytes.Buffer
		if run([]string{"dashboard", "--url", url, writeDashboard(t, `count_over_time(up[1m]) > 2`)}, &out, &out) == 0 {
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus on %s has not scraped itself 3 times in 30s:\n%s\n%s", addr, out.String(), log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writeDashboard writes a dashboard with one panel per expression and an
// annotation that finds nothing.
func writeDashboard(t *testing.T, exprs ...string) string {
	t.Helper()
	var targets []string
	for i, e := range exprs {
		targets = append(targets, fmt.Sprintf(`{"id": %d, "type": "timeseries", "title": "p%d", "targets": [{"refId": "A", "expr": %q}]}`, i+1, i+1, e))
	}
	model := fmt.Sprintf(`{"title": "t", "uid": "t", "panels": [%s],
		"annotations": {"list": [{"name": "never", "expr": "up == 5"}]}}`, strings.Join(targets, ", "))
	path := filepath.Join(t.TempDir(), "d.json")
	if err := os.WriteFile(path, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDashboardAgainstPrometheus: queries with data pass (variables
// expanded), an empty panel and a query Prometheus refuses fail, each on a
// line of its own; an annotation may find nothing.
func TestDashboardAgainstPrometheus(t *testing.T) {
	url := startPrometheus(t)
	vars := []string{"--var", "job=self", "--var", "__rate_interval=1m"}
	var out bytes.Buffer
	good := writeDashboard(t, `up{job="$job"}`, `rate(prometheus_http_requests_total{job=~"${job}"}[$__rate_interval])`)
	if code := run(append(append([]string{"dashboard", "--url", url}, vars...), good), &out, &out); code != 0 ||
		!strings.HasSuffix(out.String(), "promcheck dashboard: 3 passed, 0 failed\n") {
		t.Errorf("promcheck dashboard on queries with data: exit %d\n%s", code, out.String())
	}

	out.Reset()
	bad := writeDashboard(t, `up`, `nqueens_not_exported{job="$job"}`, `up{`, `up{instance="$instance"}`)
	code := run(append(append([]string{"dashboard", "--url", url, "--time", fmt.Sprintf("%.3f", float64(time.Now().UnixMilli())/1000)}, vars...), bad), &out, &out)
	for _, want := range []string{
		"ok   panel 1 (p1) A: 1 series\n",
		`FAIL panel 2 (p2) A: nqueens_not_exported{job="self"}: no data` + "\n",
		"FAIL panel 3 (p3) A: up{: /api/v1/query: bad_data: ",
		"FAIL panel 4 (p4) A: no value for $instance",
		"ok   annotation never: 0 series\n",
		"promcheck dashboard: 2 passed, 3 failed\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("promcheck dashboard output lacks %q:\n%s", want, out.String())
		}
	}
	if code != 1 {
		t.Errorf("promcheck dashboard with failing queries: exit %d, want 1", code)
	}

	out.Reset()
	if code := run([]string{"dashboard", "--url", "http://127.0.0.1:1", good}, &out, &out); code != 1 {
		t.Errorf("promcheck dashboard against no server: exit %d, want 1\n%s", code, out.String())
	}
}

// TestRulesAgainstPrometheus: the project's rules file, loaded by a real
// Prometheus, evaluates without error; a rule that fails at evaluation and
// one the server never loaded fail.
func TestRulesAgainstPrometheus(t *testing.T) {
	rules, err := filepath.Abs("../../../../monitoring/nqueens-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yml")
	// Many series on both sides of a one-to-one match: a runtime error.
	if err := os.WriteFile(broken, []byte(`groups:
  - name: broken
    rules:
      - alert: ManyToMany
        expr: prometheus_http_requests_total * on() prometheus_http_requests_total
`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yml")
	if err := os.WriteFile(missing, []byte("groups:\n  - name: nqueens\n    rules:\n      - alert: NeverLoaded\n        expr: up == 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startPrometheus(t, rules, broken)
	var out bytes.Buffer
	deadline := time.Now().Add(20 * time.Second)
	for run([]string{"rules", "--url", url, rules}, &out, &out) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("promcheck rules on %s never passed:\n%s", rules, out.String())
		}
		out.Reset()
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "ok   nqueens/NQueensNoWorkers: evaluated ") || !strings.HasSuffix(out.String(), " passed, 0 failed\n") {
		t.Errorf("promcheck rules output:\n%s", out.String())
	}
	for file, want := range map[string]string{
		broken:  "FAIL broken/ManyToMany: health \"err\"",
		missing: "FAIL nqueens/NeverLoaded: not loaded",
	} {
		out.Reset()
		if code := run([]string{"rules", "--url", url, file}, &out, &out); code != 1 || !strings.Contains(out.String(), want) {
			t.Errorf("promcheck rules %s: exit %d, output %q; want 1 and %q", filepath.Base(file), code, out.String(), want)
		}
	}
}
