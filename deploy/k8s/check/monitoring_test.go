package check

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	rulesPath     = "../../monitoring/nqueens-rules.yml"
	dashboardPath = "../../monitoring/nqueens-dashboard.json"
)

// metricsSources are the files that declare the nqueens_ metrics: the
// coordinator's (status), the registry every process starts from (build
// info) and the worker's own /metrics.
var metricsSources = []string{"../../../status/metrics.go", "../../../internal/promreg/promreg.go", "../../../cmd/nqueens-worker/metrics.go"}

// declaredMetrics is DeclaredMetrics of every metricsSources file.
func declaredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	all := map[string]bool{}
	for _, src := range metricsSources {
		names, err := DeclaredMetrics(src)
		if err != nil {
			t.Fatal(err)
		}
		for n := range names {
			all[n] = true
		}
	}
	return all
}

// TestPodMonitorScrapesWorkers: the PodMonitor selects the workers' pods
// and scrapes the container port their --http serves /metrics on.
func TestPodMonitorScrapesWorkers(t *testing.T) {
	_, objs, _ := setup(t)
	mon := loadMonitoring(t)
	if len(mon.PodMonitors) != 1 || len(objs.Deployments) != 1 {
		t.Fatalf("%d PodMonitors, %d Deployments; want 1 of each", len(mon.PodMonitors), len(objs.Deployments))
	}
	pm, dep := mon.PodMonitors[0], objs.Deployments[0]
	if !selects(pm.Spec.Selector.MatchLabels, dep.Spec.Template.Labels) {
		t.Errorf("PodMonitor/%s selects %v, not the worker pods %v", pm.Name, pm.Spec.Selector.MatchLabels, dep.Spec.Template.Labels)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	httpPort := flagPort(t, "worker", args(ctr), "http")
	if len(pm.Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("PodMonitor/%s has %d endpoints, want 1", pm.Name, len(pm.Spec.PodMetricsEndpoints))
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	found := false
	for _, p := range ctr.Ports {
		if ep.Port != nil && p.Name == *ep.Port && fmt.Sprint(p.ContainerPort) == httpPort {
			found = true
		}
	}
	if !found || ep.Path != "/metrics" {
		t.Errorf("PodMonitor/%s scrapes port %v path %q; want the worker's container port %s (--http) and /metrics", pm.Name, ep.Port, ep.Path, httpPort)
	}
}

// TestServiceMonitorScrapesStatusPort: the ServiceMonitor selects the
// coordinator's Service and scrapes its status port's /metrics (the token
// it sends is TestTokenFromSecret's business).
func TestServiceMonitorScrapesStatusPort(t *testing.T) {
	_, objs, _ := setup(t)
	mon := loadMonitoring(t)
	svc := objs.Services[0]
	status := servicePort(t, svc, "http")
	for _, sm := range mon.ServiceMonitors {
		for k, v := range sm.Spec.Selector.MatchLabels {
			if svc.Labels[k] != v {
				t.Errorf("ServiceMonitor/%s selects %s=%s, which Service/%s's labels %v lack", sm.Name, k, v, svc.Name, svc.Labels)
			}
		}
		if len(sm.Spec.Selector.MatchLabels) == 0 {
			t.Errorf("ServiceMonitor/%s selects every Service", sm.Name)
		}
		if len(sm.Spec.Endpoints) != 1 {
			t.Fatalf("ServiceMonitor/%s has %d endpoints, want 1", sm.Name, len(sm.Spec.Endpoints))
		}
		if ep := sm.Spec.Endpoints[0]; ep.Port != status.Name || ep.Path != "/metrics" {
			t.Errorf("ServiceMonitor/%s scrapes port %q path %q, want the status port %q and /metrics", sm.Name, ep.Port, ep.Path, status.Name)
		}
	}
}

// TestPrometheusRuleMatchesRulesFile: the operator's PrometheusRule holds
// exactly the groups of the plain rules file that promtool checks and
// tests, so the two cannot drift apart.
func TestPrometheusRuleMatchesRulesFile(t *testing.T) {
	plain, err := LoadRuleFile(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	mon := loadMonitoring(t)
	if len(mon.Rules) != 1 {
		t.Fatalf("deploy/k8s/monitoring has %d PrometheusRules, want 1", len(mon.Rules))
	}
	got := RulesOf(mon.Rules[0])
	if !reflect.DeepEqual(got, plain) {
		t.Errorf("PrometheusRule/%s differs from %s:\n got %+v\nwant %+v", mon.Rules[0].Name, rulesPath, got, plain)
	}
	var alerts []string
	for _, g := range plain.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: want a severity label and summary and description annotations", r.Alert)
			}
		}
	}
	for _, want := range []string{"NQueensNoWorkers", "NQueensNoCommits", "NQueensWorkerQuarantined", "NQueensLeasesExpiring"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s in %s (it has %v)", want, rulesPath, alerts)
		}
	}
}

// TestDashboardModel: every panel but a row has queries, on the dashboard's
// data source variable; panel ids are unique; panels lie within the
// 24-column grid without overlapping; every variable a query uses is
// defined (or one of Grafana's own).
func TestDashboardModel(t *testing.T) {
	d, err := LoadDashboard(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard uid %q title %q: want both", d.UID, d.Title)
	}
	defined := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
	for _, v := range d.Templating.List {
		defined[v.Name] = true
	}
	ids := map[int]string{}
	cells := map[[2]int]string{}
	for _, p := range d.AllPanels() {
		where := fmt.Sprintf("panel %d (%s)", p.ID, p.Title)
		if other, dup := ids[p.ID]; dup {
			t.Errorf("%s has the id of %s", where, other)
		}
		ids[p.ID] = where
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("%s: gridPos %+v is outside the 24-column grid", where, g)
		}
	overlap:
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, taken := cells[[2]int{x, y}]; taken {
					t.Errorf("%s overlaps %s at column %d, row %d", where, other, x, y)
					break overlap
				}
				cells[[2]int{x, y}] = where
			}
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s has no query", where)
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s datasource %+v, want the ${datasource} variable", where, p.Datasource)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" || tg.Datasource == nil || tg.Datasource.UID != "${datasource}" {
				t.Errorf("%s query %s: expr %q, datasource %+v; want a query on ${datasource}", where, tg.RefID, tg.Expr, tg.Datasource)
			}
		}
	}
	for _, q := range d.Queries() {
		for _, m := range grafanaVar.FindAllStringSubmatch(q.Expr, -1) {
			if name := m[1] + m[2]; !defined[name] {
				t.Errorf("%s uses $%s, which the dashboard does not define", q.Where, name)
			}
		}
	}
}

// TestMonitoringUsesExportedMetrics: every nqueens_ metric that the alert
// rules and the dashboard query is one the coordinator exports
// (status/metrics.go), so a renamed metric fails here rather than leaving
// an alert that can never fire or an empty panel. The compose test runs
// every dashboard query against a real Prometheus too.
func TestMonitoringUsesExportedMetrics(t *testing.T) {
	declared := declaredMetrics(t)
	if !declared["nqueens_solutions"] || !declared["nqueens_journal_fsync_seconds"] || !declared["nqueens_build_info"] || !declared["nqueens_worker_sent_nodes_total"] {
		t.Fatalf("found %d metric names in %v, not nqueens_solutions, nqueens_journal_fsync_seconds, nqueens_build_info and nqueens_worker_sent_nodes_total: the pattern is wrong", len(declared), metricsSources)
	}
	plain, err := LoadRuleFile(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadDashboard(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var queries []Query
	for _, g := range plain.Groups {
		for _, r := range g.Rules {
			queries = append(queries, Query{Where: "alert " + r.Alert, Expr: r.Expr})
		}
	}
	queries = append(queries, d.Queries()...)
	used := 0
	for _, q := range queries {
		for _, name := range MetricNames(q.Expr) {
			used++
			if !Exported(name, declared) {
				t.Errorf("%s queries %s, which none of %v exports", q.Where, name, metricsSources)
			}
		}
	}
	if used < 20 {
		t.Errorf("the rules and the dashboard query only %d nqueens_ series: did the patterns break?", used)
	}
}

func TestMetricNamesAndExported(t *testing.T) {
	got := MetricNames(`histogram_quantile(0.9, rate(nqueens_journal_fsync_seconds_bucket{job=~"$job"}[5m])) / nqueens_workers + nqueens_workers`)
	if want := []string{"nqueens_journal_fsync_seconds_bucket", "nqueens_workers"}; !slices.Equal(got, want) {
		t.Errorf("MetricNames = %q, want %q", got, want)
	}
	declared := map[string]bool{"nqueens_journal_fsync_seconds": true, "nqueens_workers": true}
	for name, want := range map[string]bool{
		"nqueens_journal_fsync_seconds_bucket": true, "nqueens_journal_fsync_seconds_count": true,
		"nqueens_workers": true, "nqueens_worker": false, "nqueens_workers_bucket": true, "nqueens_slots": false,
	} {
		if got := Exported(name, declared); got != want {
			t.Errorf("Exported(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"job": "nqueens", "__rate_interval": "1m"}
	for in, want := range map[string]string{
		`rate(x{job=~"$job"}[$__rate_interval])`: `rate(x{job=~"nqueens"}[1m])`,
		`x{job=~"${job}"}`:                       `x{job=~"nqueens"}`,
		`up`:                                     `up`,
	} {
		if got, err := Expand(in, vars); err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := Expand(`x{instance="$instance"}`, vars); err == nil {
		t.Errorf("Expand with an undefined variable = %q, want an error", got)
	}
}
