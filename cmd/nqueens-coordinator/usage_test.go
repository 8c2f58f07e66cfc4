package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// runCmd runs the command in-process and returns its exit status, stdout
// and stderr.
func runCmd(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkUsage asserts exit 2 and exactly one stderr line, "coordinator: "
// and want.
func checkUsage(t *testing.T, args []string, want string) {
	t.Helper()
	code, stdout, stderr := runCmd(args...)
	line := strings.TrimSuffix(stderr, "\n")
	if code != 2 || strings.Contains(line, "\n") || line != "coordinator: "+want {
		t.Errorf("coordinator %s: exit %d, stderr %q; want exit 2 and the one line %q", strings.Join(args, " "), code, stderr, "coordinator: "+want)
	}
	if stdout != "" {
		t.Errorf("coordinator %s: stdout %q, want nothing", strings.Join(args, " "), stdout)
	}
}

// TestDurationMinimums: durations below their minimums are refused at
// parse time (--lease 5ns panicked; --lease 1us or
// --heartbeat 1ns never finished).
func TestDurationMinimums(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lease", "5ns"}, "--lease 5ns is too short: at least 100ms"},
		{[]string{"--lease", "9ns"}, "--lease 9ns is too short: at least 100ms"},
		{[]string{"--lease", "1us"}, "--lease 1µs is too short: at least 100ms"},
		{[]string{"--lease", "0s"}, "--lease 0s is too short: at least 100ms"},
		{[]string{"--lease", "-1s"}, "--lease -1s is too short: at least 100ms"},
		{[]string{"--heartbeat", "1ns"}, "--heartbeat 1ns is too short: at least 10ms"},
		{[]string{"--heartbeat", "0s"}, "--heartbeat 0s is too short: at least 10ms"},
		{[]string{"--heartbeat", "15s"}, "--heartbeat 15s must be under half the lease (--lease 30s), so one late heartbeat does not lose the tasks"},
		{[]string{"--lease", "1s", "--heartbeat", "600ms"}, "--heartbeat 600ms must be under half the lease (--lease 1s), so one late heartbeat does not lose the tasks"},
		{[]string{"--drain-timeout", "1ns"}, "--drain-timeout 1ns is too short: at least 100ms"},
		{[]string{"--progress-interval", "1ns"}, "--progress-interval 1ns is too short: at least 10ms"},
		{[]string{"--max-attempts", "0"}, "--max-attempts 0 must be at least 1"},
		{[]string{"--max-message-rate", "0"}, "--max-message-rate 0 must be positive"},
		{[]string{"--task-target", "0s"}, "--task-target 0s must be positive"},
		{[]string{"--task-target", "-1m"}, "--task-target -1m0s must be positive"},
	} {
		checkUsage(t, append([]string{"--n", "8"}, tc.args...), tc.want)
	}
}

// TestConflictingFlags: flags that mean nothing together are refused with
// a line naming the conflict, instead of
// being ignored.
func TestConflictingFlags(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "f.state")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "lasvegas", "--k", "5"}, "--method applies to --first only"},
		{[]string{"--k", "3"}, "--k applies to --first only"},
		{[]string{"--seed", "3"}, "--seed applies to --first only"},
		{[]string{"--first", "--k", "3"}, "--k applies to --method lasvegas, not --method constructive"},
		{[]string{"--first", "--method", "constructive", "--seed", "2"}, "--seed applies to --method lasvegas, not --method constructive"},
		{[]string{"--first", "--method", "lasvegas", "--k", "-1"}, `--k "-1": want a number of rows or auto`},
		{[]string{"--first", "--method", "lasvegas", "--k", "-5"}, `--k "-5": want a number of rows or auto`},
		{[]string{"--first", "--state", state, "--resume"}, "--state does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--state", state}, "--state does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--unique"}, "--unique does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--verify-fraction", "0.5"}, "--verify-fraction does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--workers", "2"}, "--workers does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--depth", "2"}, "--depth does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--lease", "1m"}, "--lease does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--png", dir, "--limit", "3"}, "--limit does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--png", dir, "--format", "board"}, "--format is the text format of --solutions: add --solutions PATH"},
		{[]string{"--unique"}, "--unique lists fundamental solutions: add --solutions, --png, --svg or --sheet (a count reports them already)"},
		{[]string{"--format", "board"}, "--format is the text format of --solutions: add --solutions PATH"},
		{[]string{"--format", "board", "--png", dir}, "--format is the text format of --solutions: add --solutions PATH"},
		{[]string{"--limit", "5"}, "--limit caps pictures: add --png, --svg or --sheet"},
		{[]string{"--limit", "5", "--solutions", "-"}, "--limit caps pictures: add --png, --svg or --sheet"},
		{[]string{"--resume"}, "--resume needs --state FILE"},
		{[]string{"--n", "27", "--depth", "7", "--workers", "0"}, "depth 7 gives more than 134217728 tasks for n=27: choose a smaller depth"},
		{[]string{"--png", dir, "--limit", "0"}, "--limit 0 must be at least 1"},
		{[]string{"--first", "--progress", "log"}, "--progress does not apply to --first, which finds one solution on this machine"},
		{[]string{"--first", "--progress-interval", "1s"}, "--progress-interval applies to --method lasvegas, not --method constructive"},
		{[]string{"--progress", "off", "--progress-interval", "1s"}, "--progress-interval is the period of progress log lines: it does not apply to --progress off or bar"},
		{[]string{"--progress", "bar", "--progress-interval", "1s"}, "--progress-interval is the period of progress log lines: it does not apply to --progress off or bar"},
	} {
		checkUsage(t, append([]string{"--n", "8"}, tc.args...), tc.want)
	}
}

// TestMeaningfulFlagsStillWork: the combinations the refusals must not
// catch.
func TestMeaningfulFlagsStillWork(t *testing.T) {
	for _, args := range [][]string{
		{"--n", "6", "--first", "--format", "board"}, // --first writes to stdout without an output
		{"--n", "12", "--first", "--method", "lasvegas", "--k", "auto", "--seed", "3", "--progress-interval", "1s"},
		{"--n", "6", "--workers", "1", "--solutions", "-", "--format", "coords"},
		{"--n", "6", "--workers", "1", "--unique", "--solutions", "-"},
		{"--n", "6", "--workers", "1", "--progress", "log", "--progress-interval", "1s", "--lease", "100ms", "--heartbeat", "40ms"},
	} {
		if code, _, stderr := runCmd(append(args, "--log-level", "off")...); code != 0 {
			t.Errorf("coordinator %s: exit %d, stderr %q; want 0", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestStreamsNeverMix: with the solutions on stdout, the summary and the
// JSON object go to stderr (--json used to follow the
// solutions on stdout and break jq).
func TestStreamsNeverMix(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		lines int // solution lines on stdout
	}{
		{[]string{"--n", "6", "--workers", "1", "--solutions", "-", "--json"}, 4},
		{[]string{"--n", "6", "--workers", "1", "--solutions", "-"}, 4},
		{[]string{"--n", "8", "--first", "--json"}, 1},
	} {
		code, stdout, stderr := runCmd(append(tc.args, "--log-level", "off")...)
		if code != 0 {
			t.Fatalf("coordinator %s: exit %d: %s", strings.Join(tc.args, " "), code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != tc.lines {
			t.Errorf("coordinator %s: stdout has %d lines, want the %d solutions alone:\n%s", strings.Join(tc.args, " "), len(lines), tc.lines, stdout)
		}
		for _, l := range lines {
			if len(strings.Fields(l)) != len(strings.Fields(lines[0])) || strings.ContainsAny(l, "{=") {
				t.Errorf("coordinator %s: stdout line %q is not a solution", strings.Join(tc.args, " "), l)
			}
		}
		if strings.Contains(strings.Join(tc.args, " "), "--json") {
			var sum struct{ Solutions uint64 }
			if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &sum); err != nil || sum.Solutions == 0 {
				t.Errorf("coordinator %s: stderr %q is not the JSON summary: %v", strings.Join(tc.args, " "), stderr, err)
			}
		} else if !strings.Contains(stderr, "N=6: 4 solutions") {
			t.Errorf("coordinator %s: stderr %q, want the summary", strings.Join(tc.args, " "), stderr)
		}
	}
}

// TestResumeTakesThePlan: a resume takes N, depth and kind from the
// journal (changing --workers with auto depth was refused
// with "depth: 2 != 4"), refuses the flags that contradict it with a line
// naming them, and a missing journal is a usage error (D15).
func TestResumeTakesThePlan(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "n12.state")
	// Two worker counts that give different automatic depths.
	w1, w2 := 1, 2
	for solver.AutoDepth(12, w2, solver.KindCount) == solver.AutoDepth(12, w1, solver.KindCount) {
		w2 *= 2
	}
	code, stdout, stderr := runCmd("--n", "12", "--workers", itoa(w1), "--state", state, "--json", "--log-level", "off")
	if code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	var first struct{ Solutions, Depth int }
	json.Unmarshal([]byte(stdout), &first)

	code, stdout, stderr = runCmd("--resume", "--state", state, "--workers", itoa(w2), "--json", "--log-level", "off")
	var resumed struct {
		N, Solutions, Unique, Depth int
		Complete                    bool
	}
	if err := json.Unmarshal([]byte(stdout), &resumed); code != 0 || err != nil {
		t.Fatalf("--resume --state F --workers %d: exit %d, stdout %q, stderr %q; want exit 0 and the JSON summary", w2, code, stdout, stderr)
	}
	if resumed.N != 12 || resumed.Solutions != 14200 || resumed.Unique != 1787 || resumed.Depth != first.Depth || !resumed.Complete {
		t.Errorf("resumed run = %+v; want n=12, 14200 solutions, 1787 fundamental, depth %d, complete", resumed, first.Depth)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "13"}, "--n 13 contradicts --state " + state + ", which holds n=12 (drop --n to resume it)"},
		{[]string{"--depth", itoa(first.Depth + 1)}, "--depth " + itoa(first.Depth+1) + " contradicts --state " + state + ", which holds depth " + itoa(first.Depth) + " (drop --depth to resume it)"},
		{[]string{"--solutions", "-"}, "--state " + state + " holds a count: a resumed count cannot list solutions (drop --solutions, --png, --svg, --sheet and --unique)"},
	} {
		checkUsage(t, append([]string{"--resume", "--state", state}, tc.args...), tc.want)
	}
	listing := filepath.Join(dir, "n6.state")
	if code, _, stderr := runCmd("--n", "6", "--workers", "1", "--solutions", filepath.Join(dir, "n6.txt"), "--state", listing, "--log-level", "off"); code != 0 {
		t.Fatalf("listing run: exit %d: %s", code, stderr)
	}
	checkUsage(t, []string{"--resume", "--state", listing}, "--state "+listing+" holds a listing (kind all): resume it with the same --solutions, --png, --svg or --sheet flags")
	checkUsage(t, []string{"--resume", "--state", listing, "--unique", "--solutions", "-"}, "--state "+listing+" holds a listing of kind all, these flags ask for kind unique (check --unique)")
	checkUsage(t, []string{"--resume", "--state", dir}, "--state "+dir+" is not a regular file (a directory): give the path of a journal file")
	missing := filepath.Join(dir, "none.state")
	checkUsage(t, []string{"--resume", "--state", missing}, "--resume: --state "+missing+" does not exist (start the job without --resume)")
	checkUsage(t, []string{"--n", "8", "--resume", "--state", missing}, "--resume: --state "+missing+" does not exist (start the job without --resume)")
}

func itoa(i int) string { return strconv.Itoa(i) }
