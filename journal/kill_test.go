package journal

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
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
