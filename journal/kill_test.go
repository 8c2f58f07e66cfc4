package journal

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

const killChildEnv = "NQUEENS_JOURNAL_KILL_CHILD"

// TestKillAcknowledged runs a child process (this test binary again) that
// appends records and prints each index after Append returns, SIGKILLs it at
// a random moment, and checks that every printed (acknowledged) index is in the
// journal after Open. It resumes the same journal several times.
func TestKillAcknowledged(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		killChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	settings := testSettings
	settings.Tasks = 1 << 20
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, settings)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	acked := map[int]bool{}
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillAcknowledged$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := 5 + rand.IntN(100)
		sc := bufio.NewScanner(out)
		n := 0
		for sc.Scan() {
			i, err := strconv.Atoi(sc.Text())
			if err != nil {
				t.Fatalf("child printed %q", sc.Text())
			}
			acked[i] = true
			if n++; n == killAfter {
				cmd.Process.Kill() // SIGKILL; lines already in the pipe are still read
			}
		}
		cmd.Wait()
		if n < killAfter {
			t.Fatalf("round %d: child acknowledged only %d records before exiting", round, n)
		}
		j, rp, err := Open(path, settings)
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v", round, err)
		}
		j.Close()
		got := map[int]bool{}
		for _, r := range rp.Records {
			if r.Total != uint64(r.Index) || r.Nodes != 1 || r.Digest != nil {
				t.Fatalf("round %d: record %+v damaged", round, r)
			}
			got[r.Index] = true
		}
		for i := range acked {
			if !got[i] {
				t.Fatalf("round %d: acknowledged index %d missing from the journal (%d records)", round, i, len(rp.Records))
			}
		}
		t.Logf("round %d: killed after %d acks; journal has %d records, repaired tail: %v", round, n, len(rp.Records), rp.Repaired != nil)
	}
}

// killChild appends until killed, continuing after the replayed records.
func killChild(path string) {
	settings := testSettings
	settings.Tasks = 1 << 20
	j, rp, err := Open(path, settings)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	for i := len(rp.Records); i < settings.Tasks; i++ {
		if err := j.Append(Record{Index: i, Total: uint64(i), Nodes: 1}); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		fmt.Println(i) // os.Stdout is unbuffered: the parent sees this only after Append returned
	}
	os.Exit(0)
}

const compactChildEnv = "NQUEENS_JOURNAL_COMPACT_CHILD"

// TestKillDuringCompaction SIGKILLs a child process (this test binary
// again) while its resume rewrites a journal of single-task records, at
// random moments, until one child finishes: after every kill the journal
// reads back whole, as before or rewritten, and a later resume removes
// what the killed rewrites left.
func TestKillDuringCompaction(t *testing.T) {
	if path := os.Getenv(compactChildEnv); path != "" {
		j, _, err := Resume(path, compactSettings)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		j.Close()
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "state.journal")
	writeSingles(t, path, compactSettings, compactSettings.Tasks, func(i int) uint64 { return 1 + uint64(i/100_000) }, 0)
	want, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	// How long a whole resume takes here (a copy, -race or not), then
	// kills spread over that time, then one child left to finish.
	calibration := filepath.Join(t.TempDir(), "copy.journal")
	if data, err := os.ReadFile(path); err != nil || os.WriteFile(calibration, data, 0o600) != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := compactChild(calibration, time.Hour); err != nil {
		t.Fatalf("resume of a copy: %v", err)
	}
	whole := time.Since(start)
	finished, killed := false, 0
	for round := 0; round <= killRounds && !finished; round++ {
		delay := whole * time.Duration(round) / killRounds
		delay += time.Duration(rand.Int64N(int64(whole/killRounds) + 1))
		if round == killRounds {
			delay = time.Hour
		}
		err := compactChild(path, delay)
		if finished = err == nil; !finished {
			killed++
		}
		got, rerr := Read(path)
		if rerr != nil || !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Splits, want.Splits) {
			t.Fatalf("round %d (child: %v): the journal reads back as %d records, %v; want %d", round, err, len(got.Records), rerr, len(want.Records))
		}
	}
	if !finished {
		t.Fatal("the child left to finish its resume failed")
	}
	t.Logf("a resume takes %v here; %d children killed before one finished its resume", whole, killed)
	j, rp, err := Resume(path, compactSettings)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if rp.Compacted != nil {
		t.Errorf("the journal was rewritten again: %+v", rp.Compacted)
	}
	if left, _ := filepath.Glob(path + compactSuffix + "*"); len(left) > 0 {
		t.Errorf("left by killed rewrites: %v", left)
	}
}

// killRounds is how many children TestKillDuringCompaction may kill.
const killRounds = 12

// compactChild resumes the journal at path in a child process (this test
// binary again), killed after delay unless it ends first.
func compactChild(path string, delay time.Duration) error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringCompaction$")
	cmd.Env = append(os.Environ(), compactChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(delay, func() { cmd.Process.Kill() })
	defer timer.Stop()
	return cmd.Wait()
}

// compactSettings is the plan of TestKillDuringCompaction's journal.
var compactSettings = func() Settings { s := testSettings; s.Tasks = 300_000; return s }()

// TestTruncateAroundReopen cuts a journal at every byte around its split
// and reopen records, as a SIGKILL in the middle of their write would:
// each cut resumes (its torn tail truncated) with exactly the entries of
// the whole records before the cut, or is refused with ErrCorrupt; never
// another state. The
// scheduler's TestCollapseQuarantine replays every such prefix to an
// exact count.
func TestTruncateAroundReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.journal")
	j, err := Create(path, testSettings) // 100 tasks
	if err != nil {
		t.Fatal(err)
	}
	var marks []int64 // the file's size before each split or reopen record
	mark := func() {
		j.Sync()
		fi, _ := os.Stat(path)
		marks = append(marks, fi.Size())
	}
	mark()
	j.Split(Split{Parent: 7, First: 100, Count: 3})
	for i := 100; i < 103; i++ {
		j.Append(Record{Index: i, Total: 2, Unique: 1, Worker: uint64(1 + i%2)})
	}
	j.Distrust(2)
	mark()
	j.Split(Split{Parent: 7, Reopen: true})
	mark()
	j.Split(Split{Parent: 7, First: 103, Count: 2})
	for i := 103; i < 105; i++ {
		if err := j.Append(Record{Index: i, Total: 2, Unique: 1, Worker: 3}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, first, err := parseHeader(whole)
	if err != nil {
		t.Fatal(err)
	}
	bound := []int{first} // where each frame ends
	for off := first; off < len(whole); {
		_, next, err := readFrame(whole, off)
		if err != nil {
			t.Fatal(err)
		}
		bound, off = append(bound, next), next
	}
	cuts := 0
	for _, m := range marks {
		for cut := max(int(m)-12, first); cut <= min(int(m)+24, len(whole)); cut++ {
			got := entriesOf(t, filepath.Join(dir, fmt.Sprintf("cut%d", cut)), whole, cut)
			if got == nil {
				continue // refused
			}
			end := 0 // the last frame boundary at or before cut
			for _, b := range bound {
				if b <= cut {
					end = b
				}
			}
			want := entriesOf(t, filepath.Join(dir, fmt.Sprintf("whole%d", cut)), whole, end)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("cut at %d: entries %v, want those of its whole records %v", cut, got, want)
			}
			cuts++
		}
	}
	if cuts < 60 {
		t.Errorf("%d cuts resumed, want the sweep to cover the records", cuts)
	}
}

// entriesOf resumes the first cut bytes of data written to path and
// returns its entries, or nil when the resume is refused as corrupt.
func entriesOf(t *testing.T, path string, data []byte, cut int) []string {
	t.Helper()
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	j, rp, err := Resume(path, testSettings)
	if errors.Is(err, ErrCorrupt) {
		return nil
	}
	if err != nil {
		t.Fatalf("cut at %d: %v", cut, err)
	}
	defer j.Close()
	out := []string{}
	for e := range rp.Entries() {
		if e.IsSplit {
			out = append(out, fmt.Sprintf("split %+v", e.Split))
		} else {
			out = append(out, fmt.Sprintf("result %d by %d", e.Result.Index, e.Result.Worker))
		}
	}
	return out
}
