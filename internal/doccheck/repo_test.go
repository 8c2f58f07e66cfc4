package doccheck

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "write the commands' outputs into the Markdown files' marked examples")

// Named timeouts of the repository's check.
const (
	buildTimeout   = 5 * time.Minute  // go build of every command, on a loaded machine
	commandTimeout = 90 * time.Second // one example's command; every example is a few seconds at most
)

// repoRoot is the module's root, two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// repoFiles lists the repository's files as git sees them: tracked, plus
// new ones not ignored (so a link to a file not yet committed passes here
// and in CI alike, and a link to an ignored build output does not).
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil { // deleted but not yet committed
			files = append(files, f)
		}
	}
	return files
}

// TestRepoLinks: every link of every Markdown file of the repository
// resolves inside it.
func TestRepoLinks(t *testing.T) {
	root := repoRoot(t)
	problems, err := CheckLinks(repoFiles(t, root), func(f string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, f))
		return string(b), err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestRepoExamples runs every marked example of the repository's Markdown
// files and compares its output with the text; with -update it writes the
// outputs that differ into the files instead.
func TestRepoExamples(t *testing.T) {
	root := repoRoot(t)
	type file struct {
		name   string
		text   string
		blocks []Block
	}
	var files []file
	for _, f := range repoFiles(t, root) {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Find(string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(blocks) > 0 {
			files = append(files, file{f, string(b), blocks})
		}
	}
	if len(files) == 0 {
		t.Fatal("no marked examples in the repository's Markdown files: the README's should be")
	}
	bin := buildCommands(t, root)
	for _, f := range files {
		t.Run(strings.ReplaceAll(f.name, "/", "_"), func(t *testing.T) {
			bodies, changed := make([]string, len(f.blocks)), false
			for i, b := range f.blocks {
				bodies[i] = b.Body
				got, same, err := runBlock(t, bin, b)
				if err != nil {
					t.Errorf("%s:%d: %v", f.name, b.Line, err)
					continue
				}
				if same {
					continue
				}
				if *update {
					bodies[i], changed = got, true
					continue
				}
				t.Errorf("%s:%d: the example is stale (go test ./internal/doccheck -update writes the new output):\n--- in the file\n%s--- printed now\n%s",
					f.name, b.Line, b.Body, got)
			}
			if changed {
				if err := os.WriteFile(filepath.Join(root, f.name), []byte(Replace(f.text, f.blocks, bodies)), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: examples updated", f.name)
			}
		})
	}
}

// blockAttempts is how often an example runs before its output is called
// stale. A coordinator splits the tasks that take long, so on a machine
// that other jobs keep busy an example can print more tasks than on a
// quiet one; a stale text differs on every run, a busy moment seldom
// twice. With -update an example runs once.
const blockAttempts = 3

// runBlock runs block b, each attempt in a fresh folder, until its output
// matches the text (same) or the attempts are spent; it returns the last
// output.
func runBlock(t *testing.T, bin map[string]string, b Block) (got string, same bool, err error) {
	attempts := blockAttempts
	if *update {
		attempts = 1
	}
	for range attempts {
		r := Runner{Bin: bin, Dir: t.TempDir(), Timeout: commandTimeout}
		if got, err = checkBlock(t.Context(), r, b); err != nil {
			return got, false, err
		}
		if ApplyMasks(got, Masks) == ApplyMasks(b.Body, Masks) {
			return got, true, nil
		}
	}
	return got, false, nil
}

// checkBlock runs a block's commands in order and returns the body they
// would give it.
func checkBlock(ctx context.Context, r Runner, b Block) (string, error) {
	steps, err := b.Steps()
	if err != nil {
		return "", err
	}
	for i := range steps {
		out, err := r.Run(ctx, steps[i].Command)
		if err != nil {
			return "", err
		}
		steps[i].Output = out
	}
	return b.Render(steps), nil
}

// buildCommands builds every command of the module (cmd/*) once, into a
// folder of the test's, and maps each name to its binary.
func buildCommands(t *testing.T, root string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	bin := map[string]string{}
	for _, e := range entries {
		bin[e.Name()] = filepath.Join(dir, e.Name())
	}
	return bin
}
