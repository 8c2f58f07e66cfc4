package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestLogTimesInMilliseconds: every log line of a run starts with an RFC
// 3339 time in milliseconds.
func TestLogTimesInMilliseconds(t *testing.T) {
	msTime := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) \[`)
	code, stdout, stderr := runCmd("--n", "6", "--workers", "1", "--listen", "127.0.0.1:0", "--progress", "log")
	if code != 0 || !strings.Contains(stdout, "N=6: 4 solutions") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, l := range lines {
		if !msTime.MatchString(l) {
			t.Errorf("log line %q does not start with an RFC 3339 time in milliseconds", l)
		}
	}
	if !strings.Contains(stderr, "listening: addr=127.0.0.1:") {
		t.Errorf("no listening line at info:\n%s", stderr)
	}
}
