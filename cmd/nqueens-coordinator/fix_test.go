package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// withQueenAt renders, in format f, the solutions of the classic listing
// of the n-board that have a queen on (row, col) (1-based): the oracle of
// --fix ROW:COL.
func withQueenAt(t *testing.T, n, row, col int, f render.Format) string {
	t.Helper()
	var buf bytes.Buffer
	for cols := range solver.Solutions(n, nil) {
		if cols[row-1] == col-1 {
			if err := render.WriteText(&buf, f, cols); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buf.String()
}

// TestFixListing: "coordinator --n 8 --fix 1:1
// --solutions -" prints exactly the 4 solutions with a queen on (1,1), in
// the classic order, in every format; the summary (on stderr) names the
// pinned queen.
func TestFixListing(t *testing.T) {
	for _, f := range []string{"cols", "coords", "matrix", "board"} {
		format, _ := render.ParseFormat(f)
		code, stdout, stderr := runCmd("--n", "8", "--fix", "1:1", "--solutions", "-", "--format", f,
			"--workers", "2", "--progress", "off", "--log-level", "off")
		want := withQueenAt(t, 8, 1, 1, format)
		if code != 0 || stdout != want {
			t.Errorf("--fix 1:1 --format %s: exit %d, stdout\n%s\nwant\n%s\nstderr %s", f, code, stdout, want, stderr)
		}
		if !strings.HasPrefix(stderr, "N=8 with 1 pinned queen (1,1): 4 completions\nfundamental count not computed for pinned queens\n") {
			t.Errorf("--fix 1:1: summary %q", stderr)
		}
	}
	if got := strings.Count(withQueenAt(t, 8, 1, 1, render.Cols), "\n"); got != 4 {
		t.Fatalf("the oracle has %d solutions with a queen on (1,1), want 4", got)
	}
}

// TestFixPictures: pinned completions go to pictures as every listing does.
func TestFixPictures(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "sheet.png")
	code, stdout, stderr := runCmd("--n", "8", "--fix", "2:5", "--png", dir, "--sheet", sheet, "--labels",
		"--workers", "2", "--progress", "off", "--log-level", "off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := strings.Count(withQueenAt(t, 8, 2, 5, render.Cols), "\n")
	pngs, _ := filepath.Glob(filepath.Join(dir, "solution-*.png"))
	if len(pngs) != want || want == 0 {
		t.Errorf("%d pictures, want %d", len(pngs), want)
	}
	if _, err := os.Stat(sheet); err != nil {
		t.Errorf("no contact sheet: %v", err)
	}
	if !strings.Contains(stdout, "N=8 with 1 pinned queen (2,5): ") {
		t.Errorf("summary %q", stdout)
	}
}

// TestFixZeroCompletions: no completion is a normal answer, exit 0.
func TestFixZeroCompletions(t *testing.T) {
	code, stdout, stderr := runCmd("--n", "8", "--fix", "1:1,2:3", "--workers", "1", "--progress", "off", "--log-level", "off")
	if code != 0 || !strings.HasPrefix(stdout, "N=8 with 2 pinned queens (1,1) (2,3): 0 completions\n") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the zero count", code, stdout, stderr)
	}
	code, stdout, _ = runCmd("--n", "8", "--fix", "1:1,2:3", "--solutions", "-", "--workers", "1", "--progress", "off", "--log-level", "off")
	if code != 0 || stdout != "" {
		t.Errorf("listing: exit %d, stdout %q; want 0 and no solutions", code, stdout)
	}
}

// TestFixJSON: --json adds the pins (1-based [row, col]), the completions
// (also when 0) and the note; unique is 0, not computed.
func TestFixJSON(t *testing.T) {
	for _, tc := range []struct {
		fix  string
		want float64
	}{{"3:5,1:1", 1}, {"1:1,2:3", 0}, {"1:1", 4}} {
		code, stdout, stderr := runCmd("--n", "8", "--fix", tc.fix, "--json", "--workers", "2", "--progress", "off", "--log-level", "off")
		var got struct {
			Kind        string
			Solutions   uint64
			Unique      uint64
			Pins        [][2]int
			Completions *float64
			Note        string
		}
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
			t.Fatalf("--fix %s --json: exit %d, %v: %s %s", tc.fix, code, err, stdout, stderr)
		}
		if got.Kind != "pinned" || got.Completions == nil || *got.Completions != tc.want || got.Solutions != uint64(tc.want) ||
			got.Unique != 0 || got.Note == "" || len(got.Pins) != strings.Count(tc.fix, ":") || got.Pins[0] != [2]int{1, 1} {
			t.Errorf("--fix %s --json = %s, want %v completions, the pins from (1,1) and the note", tc.fix, stdout, tc.want)
		}
	}
}

// TestFixRefused: pins that attack each other, share a row or a column, or
// fall off the board exit 2 with ParsePins' one line naming the squares;
// so do the flags that mean nothing with pinned queens, saying why.
func TestFixRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fix", "1:1,2:2"}, "--fix: pins (1,1) and (2,2) attack each other on a diagonal"},
		{[]string{"--fix", "2:4,4:2"}, "--fix: pins (2,4) and (4,2) attack each other on a diagonal"},
		{[]string{"--fix", "1:1,1:5"}, "--fix: pins (1,1) and (1,5) are on the same row"},
		{[]string{"--fix", "1:3,5:3"}, "--fix: pins (1,3) and (5,3) are on the same column"},
		{[]string{"--fix", "9:1"}, "--fix: pin (9,1) is off the board: rows and columns are 1..8"},
		{[]string{"--fix", "3:0"}, "--fix: pin (3,0) is off the board: rows and columns are 1..8"},
		{[]string{"--fix", "1-1"}, `--fix: pin "1-1": want ROW:COL (1-based)`},
		{[]string{"--fix", ""}, "--fix: no pins: want ROW:COL,... (1-based)"},
		{[]string{"--fix", "1:1", "--first"}, "--fix does not apply to --first, which builds one solution of the whole board without a search to pin queens in"},
		{[]string{"--fix", "1:1", "--unique", "--solutions", "-"}, "--fix does not apply to --unique: the board's symmetries move pinned queens, so the completions do not fall into whole classes"},
		{[]string{"--fix", "1:1", "--state", filepath.Join(dir, "s"), "--resume"}, "--fix does not apply to --state or --resume: the journal does not keep the pins, so a pinned job cannot be resumed"},
		{[]string{"--fix", "1:1", "--state", filepath.Join(dir, "s"), "--resume=auto"}, "--fix does not apply to --state or --resume: the journal does not keep the pins, so a pinned job cannot be resumed"},
		{[]string{"--fix", "1:1", "--state", filepath.Join(dir, "s")}, "--fix does not apply to --state or --resume: the journal does not keep the pins, so a pinned job cannot be resumed"},
	} {
		checkUsage(t, append([]string{"--n", "8"}, tc.args...), tc.want)
	}
	checkUsage(t, []string{"--n", "4", "--fix", "1:2,2:4,3:1", "--depth", "2"}, "depth 2 out of range: with 3 pinned queens on n=4 it must be 0..1")
	if _, help, _ := runCmd("-h"); !strings.Contains(help, "-fix ROW:COL,...") {
		t.Errorf("coordinator -h does not mention --fix")
	}
}

// TestFixEndToEnd runs the real binaries: a coordinator with --fix and no
// embedded workers, and a worker process that learns the pins over the
// wire; the listing is the 4 solutions with a queen on (1,1).
func TestFixEndToEnd(t *testing.T) {
	coordBin, workBin := binaries(t)
	coord, logs, stdout, addr := startCoordinator(t, coordBin, nil, "--n", "8", "--fix", "1:1", "--solutions", "-",
		"--workers", "0", "--listen", "127.0.0.1:0", "--progress", "off")
	w := exec.Command(workBin, "--join", addr, "--slots", "2", "--join-timeout", "10s")
	var wlog bytes.Buffer
	w.Stderr = &wlog
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- coord.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("coordinator: %v\n%s", err, logs)
		}
	case <-time.After(e2eTimeout):
		t.Fatalf("coordinator did not finish:\n%s", logs)
	}
	if want := withQueenAt(t, 8, 1, 1, render.Cols); stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if !strings.Contains(logs.String(), "N=8 with 1 pinned queen (1,1): 4 completions") {
		t.Errorf("stderr lacks the summary:\n%s", logs)
	}
	if err := w.Wait(); err != nil {
		t.Errorf("worker: %v\n%s", err, wlog.String())
	}
}
