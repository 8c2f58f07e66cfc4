//go:build linux

package journal

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFullNamesJournal: when the disk fills (here, the
// file size limit), the error names the journal, not the temporary file
// it was created as ("n14.journal.tmp-…", which no longer exists).
func TestDiskFullNamesJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n14.journal")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = uint64(fi.Size()) + 64 // the header and a record or two
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	for i := range testSettings.Tasks {
		if err = j.Append(Record{Index: i, Total: 1, Nodes: 1}); err != nil {
			break
		}
	}
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if err == nil {
		t.Fatalf("%d appends past a file size limit all succeeded", testSettings.Tasks)
	}
	msg := err.Error()
	if strings.Contains(msg, ".tmp-") || !strings.HasPrefix(msg, "journal "+path+": ") || strings.Count(msg, "write") != 1 {
		t.Errorf("disk full: %q; want it to name %s once, and no temporary file", msg, path)
	}
	t.Log(msg)
}
