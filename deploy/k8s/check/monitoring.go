package check

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
)

// RuleFile is a plain Prometheus rules file (rule_files in prometheus.yml):
// the fields nqueens' rules use. Decoding is strict.
type RuleFile struct {
	Groups []RuleGroup `json:"groups"`
}

// RuleGroup is one group of a rules file.
type RuleGroup struct {
	Name     string `json:"name"`
	Interval string `json:"interval,omitempty"`
	Rules    []Rule `json:"rules"`
}

// Rule is one recording or alerting rule.
type Rule struct {
	Record      string            `json:"record,omitempty"`
	Alert       string            `json:"alert,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// LoadRuleFile decodes a plain rules file strictly.
func LoadRuleFile(path string) (RuleFile, error) {
	var f RuleFile
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := decodeStrict(data, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// RulesOf returns the groups of a PrometheusRule in the plain file's form,
// to compare the two.
func RulesOf(pr monitoringv1.PrometheusRule) RuleFile {
	var f RuleFile
	for _, g := range pr.Spec.Groups {
		rg := RuleGroup{Name: g.Name}
		if g.Interval != nil {
			rg.Interval = string(*g.Interval)
		}
		for _, r := range g.Rules {
			rule := Rule{Record: r.Record, Alert: r.Alert, Expr: r.Expr.String(), Labels: r.Labels, Annotations: r.Annotations}
			if r.For != nil {
				rule.For = string(*r.For)
			}
			rg.Rules = append(rg.Rules, rule)
		}
		f.Groups = append(f.Groups, rg)
	}
	return f
}

// Dashboard is the part of a Grafana dashboard JSON model that the checks
// read. Decoding is lenient: Grafana's model has many more fields.
type Dashboard struct {
	Title       string  `json:"title"`
	UID         string  `json:"uid"`
	Panels      []Panel `json:"panels"`
	Annotations struct {
		List []struct {
			Name       string      `json:"name"`
			Datasource *Datasource `json:"datasource"`
			Expr       string      `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
	Templating struct {
		List []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"list"`
	} `json:"templating"`
}

// Panel is one panel; a row holds its panels when collapsed.
type Panel struct {
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *Datasource `json:"datasource"`
	Targets    []Target    `json:"targets"`
	Panels     []Panel     `json:"panels"`
	GridPos    struct {
		H, W, X, Y int
	} `json:"gridPos"`
}

// Target is one query of a panel.
type Target struct {
	RefID      string      `json:"refId"`
	Expr       string      `json:"expr"`
	Datasource *Datasource `json:"datasource"`
	Instant    bool        `json:"instant"`
}

// Datasource names a panel's or a query's data source.
type Datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// LoadDashboard reads a Grafana dashboard JSON file.
func LoadDashboard(path string) (Dashboard, error) {
	var d Dashboard
	data, err := os.ReadFile(path)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// AllPanels returns every panel, those inside collapsed rows included.
func (d Dashboard) AllPanels() []Panel {
	var all []Panel
	var walk func([]Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			all = append(all, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return all
}

// Query is one PromQL query of a dashboard.
type Query struct {
	Where string // "panel 3 (Workers) A", "annotation Restarts"
	Expr  string
	// MayBeEmpty: an annotation's query marks events, and there may be none.
	MayBeEmpty bool
}

// Queries returns every PromQL query of the dashboard: each panel's targets
// and each annotation's expression.
func (d Dashboard) Queries() []Query {
	var qs []Query
	for _, p := range d.AllPanels() {
		for _, t := range p.Targets {
			qs = append(qs, Query{Where: fmt.Sprintf("panel %d (%s) %s", p.ID, p.Title, t.RefID), Expr: t.Expr})
		}
	}
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			qs = append(qs, Query{Where: "annotation " + a.Name, Expr: a.Expr, MayBeEmpty: true})
		}
	}
	return qs
}

var grafanaVar = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`)

// Expand replaces Grafana's variables ($name or ${name}) in expr by their
// values; a variable without a value is an error, so a query is never sent
// with one left in it.
func Expand(expr string, vars map[string]string) (string, error) {
	var missing []string
	out := grafanaVar.ReplaceAllStringFunc(expr, func(m string) string {
		name := strings.Trim(m, "${}")
		v, ok := vars[name]
		if !ok {
			missing = append(missing, m)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for %s in %q", strings.Join(missing, ", "), expr)
	}
	return out, nil
}

var (
	nqueensName = regexp.MustCompile(`\bnqueens_[a-z0-9_]+`)
	declared    = regexp.MustCompile(`"(nqueens_[a-z0-9_]+)"`)
)

// MetricNames returns the nqueens_ metric names an expression uses, as
// spelt there (a histogram's with its _bucket, _sum or _count).
func MetricNames(expr string) []string {
	var names []string
	for _, n := range nqueensName.FindAllString(expr, -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Exported reports whether the series name belongs to a metric in
// declared: the metric itself, or a histogram's _bucket, _sum or _count.
func Exported(name string, declared map[string]bool) bool {
	if declared[name] {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && declared[base] {
			return true
		}
	}
	return false
}

// DeclaredMetrics returns the nqueens_ metric names a Go source file spells
// as string literals (status/metrics.go declares every one the
// coordinator exports).
func DeclaredMetrics(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, m := range declared.FindAllStringSubmatch(string(data), -1) {
		names[m[1]] = true
	}
	return names, nil
}
