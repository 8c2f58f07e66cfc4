package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestResumeSpellings: every spelling of the old bool --resume still
// parses as it did, and auto is a third value, spelt --resume=auto or
// --resume auto. Auto resolves to a resume only when --state names a file
// that holds something.
func TestResumeSpellings(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "held.state") // any non-empty file: parsing does not read it
	if err := os.WriteFile(held, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.state")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.state")
	for _, tc := range []struct {
		args   []string
		mode   resumeMode
		resume bool
	}{
		{[]string{"--n", "8", "--state", held}, resumeOff, false},
		{[]string{"--state", held, "--resume"}, resumeOn, true},
		{[]string{"--state", held, "-resume"}, resumeOn, true},
		{[]string{"--state", held, "--resume=true"}, resumeOn, true},
		{[]string{"--state", held, "--resume=1"}, resumeOn, true},
		{[]string{"--state", held, "--resume=T"}, resumeOn, true},
		{[]string{"--n", "8", "--state", held, "--resume=false"}, resumeOff, false},
		{[]string{"--n", "8", "--state", held, "--resume=0"}, resumeOff, false},
		{[]string{"--state", held, "--resume=auto"}, resumeAuto, true},
		{[]string{"--state", held, "--resume", "auto"}, resumeAuto, true},
		{[]string{"--resume", "auto", "--state", held}, resumeAuto, true},
		{[]string{"-resume", "auto", "--state", held, "--workers", "1"}, resumeAuto, true},
		{[]string{"--n", "8", "--state", missing, "--resume=auto"}, resumeAuto, false},
		{[]string{"--n", "8", "--resume", "auto", "--state", missing}, resumeAuto, false},
		{[]string{"--n", "8", "--state", empty, "--resume=auto"}, resumeAuto, false},
		{[]string{"--state", held, "--resume=auto", "--resume=false", "--n", "8"}, resumeOff, false},
	} {
		_, lo, err := parseFlags(tc.args, io.Discard, io.Discard)
		if err != nil || lo.resumeMode != tc.mode || lo.resume != tc.resume {
			t.Errorf("coordinator %s: mode %v, resume %v, err %v; want mode %v, resume %v", strings.Join(tc.args, " "), lo.resumeMode, lo.resume, err, tc.mode, tc.resume)
		}
	}
}

// TestResumeAutoRefusals: bad values and missing pieces of --resume=auto
// are one line and exit 2.
func TestResumeAutoRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.state")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "8", "--resume=maybe", "--state", missing}, `invalid boolean value "maybe" for -resume: want true, false or auto (see coordinator -h)`},
		{[]string{"--n", "8", "--resume=auto"}, "--resume needs --state FILE"},
		{[]string{"--n", "8", "--resume", "auto"}, "--resume needs --state FILE"},
		{[]string{"--resume=auto", "--state", missing}, "--resume=auto found no job in --state " + missing + ": --n N is required to start one (see coordinator -h)"},
		{[]string{"--n", "8", "--resume", "auto", "extra"}, `unexpected argument "extra" (see coordinator -h)`},
		{[]string{"--n", "8", "--resume=auto", "auto"}, `unexpected argument "auto" (see coordinator -h)`},
		{[]string{"--n", "8", "--resume", "--", "auto"}, `unexpected argument "auto" (see coordinator -h)`},
		{[]string{"--n", "8", "--first", "--resume=auto", "--state", missing}, "--state does not apply to --first, which finds one solution on this machine"},
	} {
		checkUsage(t, tc.args, tc.want)
	}
}

// resumedRe is the log line of a resume, with the tasks it restored.
var resumedRe = regexp.MustCompile(`resuming: state=\S+ committed_tasks=(\d+) tasks=(\d+)`)

// TestResumeAuto runs the command on every state --resume=auto may meet
// when a container comes back: no journal (a new job, journaled), an empty
// file (a coordinator killed while creating it), a journal cut short (a
// crash mid-run: only the rest is counted), a finished one (nothing left
// to do), and journals it must refuse with one line: corrupt, of another
// board, not a file.
func TestResumeAuto(t *testing.T) {
	dir := t.TempDir()
	const n, want, wantUnique = "12", 14200, 1787
	args := func(state string) []string {
		return []string{"--n", n, "--depth", "3", "--workers", "2", "--resume=auto", "--state", state, "--json", "--progress", "off"}
	}
	fresh := filepath.Join(dir, "fresh.state")
	empty := filepath.Join(dir, "empty.state")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, state := range []string{fresh, empty} {
		stderr := checkCount(t, args(state), want, wantUnique)
		if !strings.Contains(stderr, "journal created: state="+state) || resumedRe.MatchString(stderr) {
			t.Errorf("--resume=auto on %s: want a new journal, not a resume:\n%s", filepath.Base(state), stderr)
		}
	}

	// A crash mid-run leaves a journal with a torn tail: cut the finished
	// one in the middle of its records.
	whole, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.state")
	if err := os.WriteFile(cut, whole[:len(whole)/2+1], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state   string
		partial bool // some tasks are left to count
	}{{cut, true}, {fresh, false}} {
		stderr := checkCount(t, args(tc.state), want, wantUnique)
		m := resumedRe.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("--resume=auto on %s: no resume in the log:\n%s", filepath.Base(tc.state), stderr)
		}
		committed, _ := strconv.Atoi(m[1])
		tasks, _ := strconv.Atoi(m[2])
		if committed < 1 || (committed < tasks) != tc.partial {
			t.Errorf("--resume=auto on %s restored %d of %d tasks; want some and, partial=%v, not all", filepath.Base(tc.state), committed, tasks, tc.partial)
		}
	}

	corrupt := filepath.Join(dir, "corrupt.state")
	if err := os.WriteFile(corrupt, []byte("not a journal at all, but not empty either\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(args(corrupt)...)
	if line := strings.TrimSuffix(stderr, "\n"); code != 2 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "coordinator: --resume refused: ") {
		t.Errorf("--resume=auto on a corrupt journal: exit %d, stderr %q; want exit 2 and one line refusing it", code, stderr)
	}
	// A journal of another N is resumed with a warning: TestResumeAutoJournalWins.
	checkUsage(t, args(dir), "--state "+dir+" is not a regular file (a directory): give the path of a journal file")
}

// checkCount runs the command, which must exit 0 with the exact count in
// its JSON summary, and returns its log.
func checkCount(t *testing.T, args []string, want, wantUnique int) string {
	t.Helper()
	code, stdout, stderr := runCmd(args...)
	var got struct {
		Solutions, Unique int
		Complete          bool
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || got.Solutions != want || got.Unique != wantUnique || !got.Complete {
		t.Fatalf("coordinator %s: exit %d, stdout %q; want exit 0, %d solutions, %d fundamental, complete\n%s", strings.Join(args, " "), code, stdout, want, wantUnique, stderr)
	}
	return stderr
}

// TestResumeAutoJournalWins: under --resume=auto a journal of another N is
// resumed with one warning, not refused: a container restarted with a
// changed NQUEENS_N would otherwise exit 2 on every restart.
// Plain --resume still refuses the contradiction.
func TestResumeAutoJournalWins(t *testing.T) {
	state := filepath.Join(t.TempDir(), "job.state")
	if code, _, stderr := runCmd("--n", "8", "--workers", "1", "--state", state, "--log-level", "off"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd("--n", "9", "--workers", "1", "--state", state, "--resume=auto", "--json", "--progress", "off")
	if code != 0 {
		t.Fatalf("--n 9 --resume=auto over an n=8 journal: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "holds n=8") || !strings.Contains(stderr, "resuming the journal's job") {
		t.Errorf("stderr does not say the journal's job wins:\n%s", stderr)
	}
	var sum struct {
		N         int    `json:"n"`
		Solutions uint64 `json:"solutions"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.N != 8 || sum.Solutions != 92 {
		t.Errorf("summary %q (%v), want n=8 with 92 solutions", stdout, err)
	}
	checkUsage(t, []string{"--n", "9", "--state", state, "--resume"}, "--n 9 contradicts --state "+state+", which holds n=8 (drop --n to resume it)")
}
