// Command promcheck checks deploy/monitoring's files against a real
// Prometheus that scrapes a real coordinator, as the compose test runs it:
//
//	promcheck dashboard --url http://127.0.0.1:19090 --var job=nqueens --var __rate_interval=1m \
//	    [--time 1767000000.5] deploy/monitoring/nqueens-dashboard.json
//	promcheck rules --url http://127.0.0.1:19090 deploy/monitoring/nqueens-rules.yml
//
// dashboard runs every query of a Grafana dashboard (each panel's targets,
// each annotation), its variables replaced by the --var values, at --time
// (default: now), and wants each one accepted and, for panels, some data:
// an empty panel means a metric that the coordinator does not export, or a
// selector that matches nothing. rules wants every rule of the rules file
// loaded by the server and evaluated without error.
//
// It prints one line per query or rule and a last line that counts them.
// Exit status: 0 all good, 1 one or more failed, 2 bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/deploy/k8s/check"
)

const usage = `usage: promcheck dashboard --url URL [--var NAME=VALUE]... [--time UNIX] FILE.json
       promcheck rules --url URL FILE.yml`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "dashboard" && args[0] != "rules") {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("promcheck "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base := fs.String("url", "", "the Prometheus server's address")
	at := fs.String("time", "", "evaluate at this Unix time (seconds); default now")
	timeout := fs.Duration("timeout", 10*time.Second, "time allowed for each call")
	vars := map[string]string{}
	fs.Func("var", "a dashboard variable's value, NAME=VALUE (repeatable)", func(s string) error {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return errors.New("want NAME=VALUE")
		}
		vars[name] = value
		return nil
	})
	if err := fs.Parse(args[1:]); err != nil {
		fmt.Fprintf(stderr, "promcheck %s: %v\n", args[0], err)
		return 2
	}
	if fs.NArg() != 1 || *base == "" {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var when time.Time
	if *at != "" {
		secs, err := strconv.ParseFloat(*at, 64)
		if err != nil {
			fmt.Fprintf(stderr, "promcheck: --time %q: want Unix seconds\n", *at)
			return 2
		}
		when = time.UnixMilli(int64(secs * 1000))
	}
	p := check.Prometheus{URL: strings.TrimSuffix(*base, "/"), HTTP: &http.Client{Timeout: *timeout}}
	var failed, total int
	var err error
	if args[0] == "dashboard" {
		failed, total, err = dashboard(p, fs.Arg(0), vars, when, stdout)
	} else {
		failed, total, err = rules(p, fs.Arg(0), stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "promcheck: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "promcheck %s: %d passed, %d failed\n", args[0], total-failed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// dashboard runs every query of the dashboard in path.
func dashboard(p check.Prometheus, path string, vars map[string]string, at time.Time, out io.Writer) (failed, total int, err error) {
	d, err := check.LoadDashboard(path)
	if err != nil {
		return 0, 0, err
	}
	queries := d.Queries()
	if len(queries) == 0 {
		return 0, 0, fmt.Errorf("%s has no query", path)
	}
	for _, q := range queries {
		expr, err := check.Expand(q.Expr, vars)
		if err != nil {
			failed++
			fmt.Fprintf(out, "FAIL %s: %v\n", q.Where, err)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		n, err := p.Query(ctx, expr, at)
		cancel()
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(out, "FAIL %s: %s: %v\n", q.Where, expr, err)
		case n == 0 && !q.MayBeEmpty:
			failed++
			fmt.Fprintf(out, "FAIL %s: %s: no data\n", q.Where, expr)
		default:
			fmt.Fprintf(out, "ok   %s: %d series\n", q.Where, n)
		}
	}
	return failed, len(queries), nil
}

// rules checks that every rule of the rules file in path is loaded and
// evaluated without error.
func rules(p check.Prometheus, path string, out io.Writer) (failed, total int, err error) {
	f, err := check.LoadRuleFile(path)
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	loaded, err := p.Rules(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			total++
			name := r.Alert + r.Record
			i := indexRule(loaded, g.Name, name)
			switch {
			case i < 0:
				failed++
				fmt.Fprintf(out, "FAIL %s/%s: not loaded\n", g.Name, name)
			case loaded[i].Health != "ok" || loaded[i].LastEvaluation.IsZero() || loaded[i].LastEvaluation.Year() < 2000:
				failed++
				fmt.Fprintf(out, "FAIL %s/%s: health %q, last evaluation %s, error %q\n", g.Name, name,
					loaded[i].Health, loaded[i].LastEvaluation.Format(time.RFC3339), loaded[i].LastError)
			default:
				fmt.Fprintf(out, "ok   %s/%s: evaluated %s, %s\n", g.Name, name, loaded[i].LastEvaluation.Format(time.RFC3339), stateOf(loaded[i]))
			}
		}
	}
	return failed, total, nil
}

func indexRule(rules []check.LoadedRule, group, name string) int {
	for i, r := range rules {
		if r.Group == group && r.Name == name {
			return i
		}
	}
	return -1
}

func stateOf(r check.LoadedRule) string {
	if r.State == "" {
		return r.Type
	}
	return r.Type + " " + r.State
}
