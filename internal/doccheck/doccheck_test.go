package doccheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const sample = "# Title\n\n" +
	"<!-- doccheck: go run ./cmd/nqueens-coordinator --n 4 -->\n" +
	"```\nN=4: 2 solutions\n```\n\n" +
	"text\n\n" +
	"<!-- doccheck -->\n" +
	"````console\n$ echo a \\\n  b\na b\n$ false   # exit 1\n```\nnot a fence end\n````\n" +
	"tail\n"

func TestFind(t *testing.T) {
	blocks, err := Find(sample)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("Find found %d blocks, want 2", len(blocks))
	}
	if b := blocks[0]; b.Line != 3 || b.Command != "go run ./cmd/nqueens-coordinator --n 4" || b.Body != "N=4: 2 solutions\n" {
		t.Errorf("first block = %+v", b)
	}
	steps, err := blocks[1].Steps()
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{"echo a \\\n  b", "a b\n"}, {"false   # exit 1", "```\nnot a fence end\n"}}
	if !slices.Equal(steps, want) {
		t.Errorf("steps = %q, want %q", steps, want)
	}
	// Rendering the steps gives the body back, and Replace puts new bodies
	// in place and nothing else.
	if got := blocks[1].Render(steps); got != blocks[1].Body {
		t.Errorf("Render = %q, want the body %q", got, blocks[1].Body)
	}
	got := Replace(sample, blocks, []string{"N=4: 2\n", blocks[1].Body})
	if want := strings.Replace(sample, "N=4: 2 solutions\n", "N=4: 2\n", 1); got != want {
		t.Errorf("Replace =\n%s\nwant\n%s", got, want)
	}
}

func TestFindErrors(t *testing.T) {
	for _, md := range []string{
		"<!-- doccheck -->\ntext\n",             // no block after the marker
		"<!-- doccheck -->\n```\n$ true\n",      // never closed
		"<!-- doccheck: true -->\n\n```\n```\n", // a blank line between
	} {
		if _, err := Find(md); err == nil {
			t.Errorf("Find(%q) = nil error, want one", md)
		}
	}
	b := Block{Body: "output before any command\n"}
	if _, err := b.Steps(); err == nil {
		t.Error("a session without a leading $ line: nil error")
	}
}

// TestRunner runs real commands: the module's spellings are replaced by the
// binaries, the output is stdout then stderr, and the exit status is
// checked against "# exit N".
func TestRunner(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho \"err $*\" >&2\necho \"out $*\"\nexit ${CODE:-0}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Runner{Bin: map[string]string{"tool": tool}, Dir: dir, Timeout: 10 * time.Second}
	ctx := context.Background()
	for _, tc := range []struct {
		cmd, want string
		fails     bool
	}{
		{"go run ./cmd/tool x y", "out x y\nerr x y\n", false},
		{"bin/tool z | tr a-z A-Z", "OUT Z\nerr z\n", false},
		{"CODE=2 bin/tool q   # exit 2", "out q\nerr q\n", false},
		{"CODE=2 bin/tool q", "", true},     // exit 2 without saying so
		{"bin/tool q   # exit 1", "", true}, // exit 0 where 1 was said
		{"go run ./cmd/other", "", true},    // not a binary of the module
		{"sleep 30", "", true},              // past the timeout below
	} {
		if tc.cmd == "sleep 30" {
			r.Timeout = 200 * time.Millisecond
		}
		got, err := r.Run(ctx, tc.cmd)
		if tc.fails != (err != nil) || (!tc.fails && got != tc.want) {
			t.Errorf("Run(%q) = %q, %v; want %q, failure %v", tc.cmd, got, err, tc.want, tc.fails)
		}
	}
	t.Setenv("NQUEENS_TOKEN", "secret")
	r.Timeout = 10 * time.Second
	if got, _ := r.Run(ctx, "echo ${NQUEENS_TOKEN:-unset}"); got != "unset\n" {
		t.Errorf("the caller's NQUEENS_TOKEN reached the example: %q", got)
	}
}

// TestMasks: what varies is masked, a changed count is not.
func TestMasks(t *testing.T) {
	a := "2026-12-04T15:34:16Z [INFO] listening on 127.0.0.1:4242\n" +
		"N=12: 14200 solutions\ntime 23ms, 625.9k solutions/s; 1090 tasks, 135718 nodes\n" +
		`{"tasks":322,"elapsed_seconds":0.0265,"runs":68}` + "\n" +
		"N=1000: one solution by lasvegas (k=980, 0 failed attempts) in 5.648ms\n" +
		"  -workers int\n    \tembedded workers (default 2)\n  -name string\n    \tname (default \"vm\")\n" +
		"0,1 3 7 3,0,0,0,a5d108d3a31d3463\n" + `{"task":0,"total":0,"worker":"a5d108d3a31d3463"}` + "\n"
	b := "2027-01-01T00:00:00.123+01:00 [INFO] listening on 127.0.0.1:80\n" +
		"N=12: 14200 solutions\ntime 1.2s, 11.8k solutions/s; 1090 tasks, 135718 nodes\n" +
		`{"tasks":322,"elapsed_seconds":1.5,"runs":3}` + "\n" +
		"N=1000: one solution by lasvegas (k=980, 0 failed attempts) in 1m2.5s\n" +
		"  -workers int\n    \tembedded workers (default 64)\n  -name string\n    \tname (default \"host-7\")\n" +
		"0,1 3 7 3,0,0,0,00000000000000ff\n" + `{"task":0,"total":0,"worker":"00000000000000ff"}` + "\n"
	if ApplyMasks(a, Masks) != ApplyMasks(b, Masks) {
		t.Errorf("runs that differ only in times, ports and machine defaults differ after masking:\n%s\n%s", ApplyMasks(a, Masks), ApplyMasks(b, Masks))
	}
	for _, changed := range []string{
		strings.Replace(a, "135718 nodes", "149093 nodes", 1),
		strings.Replace(a, `"tasks":322`, `"tasks":672`, 1),
		strings.Replace(a, "k=980", "k=979", 1),
		strings.Replace(a, "embedded workers", "local workers", 1),
		strings.Replace(a, "0,1 3 7 3,0,0,0", "0,1 3 7 3,2,1,0", 1),
	} {
		if ApplyMasks(changed, Masks) == ApplyMasks(a, Masks) {
			t.Errorf("masking hides a real change:\n%s", changed)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"A cluster on one machine":                  "a-cluster-on-one-machine",
		"Runs that survive crashes; tokens and TLS": "runs-that-survive-crashes-tokens-and-tls",
		"coordinator study lasvegas":                "coordinator-study-lasvegas",
		"`--json`, logs & export: exact":            "--json-logs--export-exact",
		"See [the docs](docs/x.md) <em>now</em>":    "see-the-docs-now",
		"Ünïcode_names 2":                           "ünïcode_names-2",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckLinks(t *testing.T) {
	files := map[string]string{
		"README.md": "# Top\n## Usage\n## Usage\n[ok](docs/a.md#details) [ok](#usage-1) ![img](docs/p.png) [web](https://example.com)\n" +
			"[bad](docs/missing.md) [bad](#nowhere) [bad](docs/a.md#nowhere) [bad](../shared/DESIGN.md)\n" +
			"`[not a link](nowhere.md)`\n```\n[not a link](nowhere.md)\n```\n" +
			"see ../shared/anchors for more\n[dir](docs/) [bad](/abs.md) [bad](docs/p.png#x)\n",
		"docs/a.md":  "## Details\n<a id=\"custom\"></a>\n[back](../README.md#top) [custom](#custom)\n",
		"docs/p.png": "",
	}
	var names []string
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	problems, err := CheckLinks(names, func(f string) (string, error) {
		s, ok := files[f]
		if !ok {
			return "", fmt.Errorf("read %s: no such file", f)
		}
		return s, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%s:%d", p.File, p.Line))
	}
	// Line 5: four broken links, one of them also text pointing outside;
	// line 10: that text alone; line 11: an absolute path, an anchor into a
	// picture.
	want := []string{"README.md:5", "README.md:5", "README.md:5", "README.md:5", "README.md:5", "README.md:10", "README.md:11", "README.md:11"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("problems at %v, want %v:\n%v", got, want, problems)
	}
}
