package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadTokenFile: a Secret's file gives the token without its newline;
// empty, oversized, missing and unprintable files are errors that never
// show the token.
func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok, err := ReadTokenFile(write("secret", "s3cret-token\n"))
	if err != nil || tok.Reveal() != "s3cret-token" {
		t.Fatalf("ReadTokenFile = %q, %v; want s3cret-token", tok.Reveal(), err)
	}
	for name, tc := range map[string]struct{ content, want string }{
		"empty":   {"  \n", "empty"},
		"big":     {strings.Repeat("s3cret", 1000), "over 4096 bytes"},
		"control": {"s3cret\x01token", "non-printable"},
	} {
		_, err := ReadTokenFile(write(name, tc.content))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s file: %v, want an error saying %q without the token", name, err, tc.want)
		}
	}
	if _, err := ReadTokenFile(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v, want no such file", err)
	}
}
