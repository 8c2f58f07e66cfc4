package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// writeJournal commits every task of the N=n count plan at depth into a
// journal at path, with counts from the solver, alternating two worker
// keys, and returns the open journal (still held, as a running job's).
func writeJournal(t *testing.T, path string, n, depth int) (*journal.Journal, solver.Plan) {
	t.Helper()
	plan, err := solver.NewPlan(n, depth, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Create(path, journal.Settings{N: n, Depth: depth, Kind: uint8(plan.Kind), Fingerprint: plan.Fingerprint(),
		SolverVersion: solver.Version, Tasks: len(plan.Tasks)})
	if err != nil {
		t.Fatal(err)
	}
	// Commit in reverse, as workers finish out of order: export sorts.
	for i := len(plan.Tasks) - 1; i >= 0; i-- {
		c, err := solver.CountTask(n, plan.Tasks[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(journal.Record{Index: i, Total: c.Total, Unique: c.Unique, Nodes: c.Nodes, Worker: uint64(0xa1 + i%2)}); err != nil {
			t.Fatal(err)
		}
	}
	return j, plan
}

func runExport(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"export"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExportCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n10.state")
	j, plan := writeJournal(t, path, 10, 3)
	defer j.Close() // exported while the journal is held, as during a run
	code, out, errs := runExport("--state", path)
	if code != 0 || errs != "" {
		t.Fatalf("export = %d, stderr %q", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "task,prefix,total,fundamental,nodes,worker" {
		t.Errorf("header %q", got)
	}
	if len(recs)-1 != len(plan.Tasks) {
		t.Fatalf("%d rows, want one per task: %d", len(recs)-1, len(plan.Tasks))
	}
	var total, unique uint64
	for i, r := range recs[1:] {
		if r[0] != strconv.Itoa(i) {
			t.Errorf("row %d is task %s, want rows in task order", i, r[0])
		}
		var want []string
		for _, v := range plan.Tasks[i].Prefix {
			want = append(want, strconv.Itoa(v))
		}
		if r[1] != strings.Join(want, " ") {
			t.Errorf("task %d prefix %q, want %q", i, r[1], strings.Join(want, " "))
		}
		if w := []string{"a1", "a2"}[i%2]; r[5] != w {
			t.Errorf("task %d worker %q, want %q", i, r[5], w)
		}
		tv, _ := strconv.ParseUint(r[2], 10, 64)
		uv, _ := strconv.ParseUint(r[3], 10, 64)
		nv, _ := strconv.ParseUint(r[4], 10, 64)
		if nv == 0 {
			t.Errorf("task %d has no nodes", i)
		}
		total, unique = total+tv, unique+uv
	}
	if total != 724 || unique != 92 {
		t.Errorf("the rows add up to %d solutions, %d fundamental; want 724 and 92 (N=10)", total, unique)
	}
}

// TestExportOfARun exports the journal of a real coordinator run.
func TestExportOfARun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n11.state")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--n", "11", "--workers", "2", "--state", path, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("coordinator --n 11 --state = %d: %s", code, errb.String())
	}
	code, jl, errs := runExport("--state", path, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("export --format jsonl = %d: %s", code, errs)
	}
	var total, unique uint64
	lines := strings.Split(strings.TrimSpace(jl), "\n")
	for _, l := range lines {
		var r exportRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		total, unique = total+r.Total, unique+r.Fundamental
	}
	var sum struct{ Tasks int }
	json.Unmarshal(out.Bytes(), &sum)
	if total != 2680 || unique != 341 || len(lines) != sum.Tasks {
		t.Errorf("export of an N=11 run: %d rows adding up to %d and %d; want %d rows, 2680 and 341", len(lines), total, unique, sum.Tasks)
	}
}

func TestExportTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torn.state")
	j, plan := writeJournal(t, path, 8, 2)
	j.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{40, 0, 0, 0, 1, 2}) // a record being written when export reads
	f.Close()
	before, _ := os.ReadFile(path)
	code, out, errs := runExport("--state", path, "--format", "jsonl")
	if code != 0 || strings.Count(out, "\n") != len(plan.Tasks) {
		t.Errorf("export of a journal with a torn tail = %d with %d rows (stderr %q), want 0 and %d", code, strings.Count(out, "\n"), errs, len(plan.Tasks))
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("export changed the journal")
	}
}

func TestExportBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("this is not a journal\n"), 0o644)
	for _, args := range [][]string{
		{},
		{"--state", filepath.Join(dir, "missing")},
		{"--state", garbage},
		{"--state", garbage, "--format", "xml"},
		{"--state", garbage, "extra"},
		{"--bogus"},
	} {
		code, out, errs := runExport(args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "coordinator export: ") {
			t.Errorf("export %q = %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
}

// TestExportOfASplitRun: the export of a run whose tasks were split names
// every committed task's prefix, children included, and each prefix
// counts what its row says.
func TestExportOfASplitRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "split.state")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--n", "10", "--workers", "2", "--depth", "1", "--task-target", "1ns", "--state", path, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("coordinator --n 10 --task-target 1ns --state = %d: %s", code, errb.String())
	}
	code, jl, errs := runExport("--state", path, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("export --format jsonl = %d: %s", code, errs)
	}
	var total uint64
	deep := 0
	for _, l := range strings.Split(strings.TrimSpace(jl), "\n") {
		var r exportRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		c, err := solver.CountTask(10, solver.Task{Prefix: r.Prefix})
		if err != nil || c.Total != r.Total {
			t.Fatalf("task %d, prefix %v: counts %d (%v), the row says %d", r.Task, r.Prefix, c.Total, err, r.Total)
		}
		total += r.Total
		if len(r.Prefix) > 5 {
			deep++
		}
	}
	if total != 724 || deep == 0 {
		t.Errorf("export of a split N=10 run: rows add up to %d with %d prefixes past depth 5; want 724 and some", total, deep)
	}
}
