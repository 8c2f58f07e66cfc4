package journal_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nqueens/nqueens/journal"
)

func Example() {
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "n8.journal")
	settings := journal.Settings{N: 8, Depth: 2, Kind: 1, Fingerprint: 42, SolverVersion: 1, Tasks: 4}

	// A first run commits two tasks, then dies.
	j, _ := journal.Create(path, settings)
	j.Append(journal.Record{Index: 0, Total: 20, Unique: 3, Nodes: 500})
	j.Append(journal.Record{Index: 2, Total: 26, Unique: 3, Nodes: 610})
	j.Close()

	// A resume with other settings is refused.
	other := settings
	other.N = 9
	_, _, err := journal.Open(path, other)
	fmt.Println(errors.Is(err, journal.ErrSettingsMismatch))

	// The resume with the same settings skips the committed tasks.
	j, rp, err := journal.Open(path, settings)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer j.Close()
	for _, r := range rp.Records {
		fmt.Printf("task %d: %d solutions\n", r.Index, r.Total)
	}
	// Output:
	// true
	// task 0: 20 solutions
	// task 2: 26 solutions
}
