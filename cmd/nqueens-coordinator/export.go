package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

const exportUsage = `Usage: nqueens-coordinator export --state FILE [--format csv|jsonl]

Writes one row per committed task of a --state journal on stdout, in task
order, so a second run or another program can check a big count piece by
piece: task (its index in the plan), prefix (the task's fixed values,
solver.Task.Prefix, 0-based), total, fundamental, nodes, and worker (the
key of the worker session that computed it, hex; 0 for the coordinator's
own or unknown). The journal records no commit times.

The journal is only read, never locked or repaired: it may belong to a run
still going (a record being written at that moment is left out). Results
of workers caught lying (distrusted) are left out, as a resume does.
Exit status: 0 written, 1 failed writing, 2 bad usage or not a readable
journal.

Examples:
  nqueens-coordinator export --state n20.journal > n20.csv
  nqueens-coordinator export --state n20.journal --format jsonl | head -1
  # the total so far, while the run goes on (awk's doubles are exact to 2^53)
  nqueens-coordinator export --state n20.journal | awk -F, 'NR > 1 { t += $3 } END { print t }'

Flags:
`

// exportRow is one committed task.
type exportRow struct {
	Task        int    `json:"task"`
	Prefix      []int  `json:"prefix"`
	Total       uint64 `json:"total"`
	Fundamental uint64 `json:"fundamental"`
	Nodes       uint64 `json:"nodes"`
	Worker      string `json:"worker"`
}

// exportMain is `coordinator export`: it returns the exit status.
func exportMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("coordinator export", flag.ContinueOnError)
	state := fs.String("state", "", "the journal `FILE` of a run (--state), finished or running (required)")
	format := fs.String("format", "csv", "output format: csv (with a header row) or jsonl (one JSON object a line)")
	if err := cli.Parse(fs, args, stdout, exportUsage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "coordinator export: %v\n", err)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "coordinator export: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *state == "":
		fmt.Fprintln(stderr, "coordinator export: --state FILE is required")
		return 2
	case *format != "csv" && *format != "jsonl":
		fmt.Fprintf(stderr, "coordinator export: --format %q: want csv or jsonl\n", *format)
		return 2
	}
	if err := regularState(*state); err != nil {
		fmt.Fprintf(stderr, "coordinator export: %v\n", err)
		return 2
	}
	rows, warn, err := exportRows(*state)
	if err != nil {
		fmt.Fprintf(stderr, "coordinator export: %v\n", err)
		return 2
	}
	if warn != "" {
		fmt.Fprintf(stderr, "coordinator export: %s\n", warn)
	}
	w := bufio.NewWriter(stdout)
	if *format == "csv" {
		err = writeCSV(w, rows)
	} else {
		err = writeJSONL(w, rows)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "coordinator export: writing: %v\n", err)
		return 1
	}
	return 0
}

// exportRows reads the journal at path and names each committed task's
// prefix from the plan its settings describe. When this build's solver
// cannot rebuild that plan (another solver version), the prefixes are
// left empty and warn says so.
func exportRows(path string) (rows []exportRow, warn string, err error) {
	rp, err := journal.Read(path)
	if err != nil {
		return nil, "", err
	}
	s := rp.Settings
	plan, perr := solver.NewPlan(s.N, s.Depth, solver.Kind(s.Kind))
	switch {
	case perr != nil:
		warn = fmt.Sprintf("%s: no prefixes: the journal's plan (n=%d, depth=%d, kind=%d) is not one this build makes: %v", path, s.N, s.Depth, s.Kind, perr)
	case s.SolverVersion != solver.Version || plan.Fingerprint() != s.Fingerprint || (s.Tasks > 0 && len(plan.Tasks) != s.Tasks):
		warn = fmt.Sprintf("%s: no prefixes: the journal is of solver version %d, this build is %d", path, s.SolverVersion, solver.Version)
		plan.Tasks = nil
	}
	prefixes := taskPrefixes(plan, rp.Splits)
	for _, r := range rp.Records {
		row := exportRow{Task: r.Index, Prefix: []int{}, Total: r.Total, Fundamental: r.Unique, Nodes: r.Nodes, Worker: strconv.FormatUint(r.Worker, 16)}
		if r.Index < len(prefixes) {
			row.Prefix = prefixes[r.Index]
		}
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b exportRow) int { return a.Task - b.Task })
	return rows, warn, nil
}

// taskPrefixes names every task of plan and of the journal's splits, in
// task order: the children of a split are numbered after every task
// before it, as the coordinator numbered them. It stops at a split that
// does not fit the plan (the rest are left unnamed).
func taskPrefixes(plan solver.Plan, splits []journal.Split) [][]int {
	prefixes := make([][]int, len(plan.Tasks))
	for i, t := range plan.Tasks {
		prefixes[i] = t.Prefix
	}
	if len(plan.Tasks) == 0 {
		return prefixes
	}
	for _, sp := range splits {
		if sp.Parent >= len(prefixes) || sp.First != len(prefixes) {
			break
		}
		kids, err := solver.Split(plan.N, prefixes[sp.Parent])
		if err != nil || len(kids) != sp.Count {
			break
		}
		prefixes = append(prefixes, kids...)
	}
	return prefixes
}

func writeCSV(w io.Writer, rows []exportRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"task", "prefix", "total", "fundamental", "nodes", "worker"})
	for _, r := range rows {
		p := make([]string, len(r.Prefix))
		for i, v := range r.Prefix {
			p[i] = strconv.Itoa(v)
		}
		cw.Write([]string{strconv.Itoa(r.Task), strings.Join(p, " "), strconv.FormatUint(r.Total, 10),
			strconv.FormatUint(r.Fundamental, 10), strconv.FormatUint(r.Nodes, 10), r.Worker})
	}
	cw.Flush()
	return cw.Error()
}

func writeJSONL(w io.Writer, rows []exportRow) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
