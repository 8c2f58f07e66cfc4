package journal

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const fullDiskChildEnv = "NQUEENS_JOURNAL_FULL_DISK_CHILD"

// TestCreateDiskFull makes the header write fail for real: a child process
// (this test binary again) lowers its file size limit (RLIMIT_FSIZE) below
// a header, so the kernel refuses the write (EFBIG; Go ignores SIGXFSZ)
// as it refuses one on a full disk. The error names the journal, not the
// temporary file that Create removed, and nothing is left behind.
func TestCreateDiskFull(t *testing.T) {
	if path := os.Getenv(fullDiskChildEnv); path != "" {
		lim := syscall.Rlimit{Cur: 4, Max: 4}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		_, err := Create(path, testSettings)
		os.Stdout.WriteString(err.Error() + "\n")
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.j")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateDiskFull$")
	cmd.Env = append(os.Environ(), fullDiskChildEnv+"="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	msg, _, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(msg, "journal "+path+": write header: ") || !strings.Contains(msg, "file too large") {
		t.Errorf("Create error = %q, want %q and the reason", msg, "journal "+path+": write header: ")
	}
	if strings.Contains(msg, ".tmp") {
		t.Errorf("Create error %q names the temporary file, which is gone", msg)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) > 0 {
		t.Errorf("files left behind: %v", left)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat %s after the failed Create: %v, want it absent", path, err)
	}
}
