package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stateRaceRounds bounds TestStateRace: each round starts two processes.
const stateRaceRounds = 15

// TestStateRace starts two fresh coordinators on one --state at the same
// moment, many times (both could fail, the loser removing
// the winner's temporary file). Exactly one runs (it listens, with no
// workers, until killed); the other exits 2 with one line saying the
// state is in use.
func TestStateRace(t *testing.T) {
	coordBin, _ := binaries(t)
	dir := t.TempDir()
	for round := range stateRaceRounds {
		state := filepath.Join(dir, fmt.Sprintf("race%d.state", round))
		args := []string{"--n", "14", "--workers", "0", "--listen", "127.0.0.1:0", "--state", state}
		type proc struct {
			cmd    *exec.Cmd
			stderr *lineWatcher
			listen <-chan []string
			exited chan error
		}
		var ps [2]proc
		started := make(chan struct{}) // Wait must not run before Start returns
		for i := range ps {
			p := &ps[i]
			p.cmd = exec.Command(coordBin, args...)
			p.stderr = &lineWatcher{}
			p.listen = p.stderr.on(`listening: addr=`)
			pipe, err := p.cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			p.exited = make(chan error, 1)
			go func() { // read all of stderr before Wait closes the pipe
				p.stderr.run(pipe)
				<-started
				p.exited <- p.cmd.Wait()
			}()
		}
		for i := range ps { // as close together as two starts go
			if err := ps[i].cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer ps[i].cmd.Process.Kill()
		}
		close(started)
		winner, loser := -1, -1
		deadline := time.After(e2eTimeout)
		for winner < 0 || loser < 0 {
			select {
			case <-ps[0].listen:
				winner, ps[0].listen = 0, nil
			case <-ps[1].listen:
				winner, ps[1].listen = 1, nil
			case err := <-ps[0].exited:
				loser = checkLoser(t, round, err, ps[0].stderr, 0)
			case err := <-ps[1].exited:
				loser = checkLoser(t, round, err, ps[1].stderr, 1)
			case <-deadline:
				t.Fatalf("round %d: want one coordinator listening and one refused:\n%s\n---\n%s", round, ps[0].stderr, ps[1].stderr)
			}
		}
		if winner == loser {
			t.Fatalf("round %d: coordinator %d listened and exited", round, winner)
		}
		ps[winner].cmd.Process.Signal(syscall.SIGKILL)
		<-ps[winner].exited
	}
}

// checkLoser checks that the refused coordinator exited 2 with one line
// saying the state is in use, and returns i.
func checkLoser(t *testing.T, round int, err error, stderr *lineWatcher, i int) int {
	t.Helper()
	var exit *exec.ExitError
	out := strings.TrimSpace(stderr.String())
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Contains(out, "\n") || !strings.Contains(out, "is in use by another coordinator") {
		t.Fatalf("round %d: coordinator %d exited with %v, stderr %q; want exit 2 and one line saying the state is in use", round, i, err, out)
	}
	return i
}
