package loglimit

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
)

func TestText(t *testing.T) {
	if got := Text("short"); got != "short" {
		t.Errorf("Text(short) = %q", got)
	}
	big := strings.Repeat("é", 1<<19) // 1 MiB of two-byte runes
	got := Text(big)
	if len(got) > MaxText+40 || !utf8.ValidString(got) || !strings.HasSuffix(got, "bytes more)") {
		t.Errorf("Text(1 MiB) = %d bytes, valid %v, ends %q; want at most %d valid bytes and a note", len(got), utf8.ValidString(got), got[max(len(got)-30, 0):], MaxText+40)
	}
	if !strings.Contains(got, "(1048320 bytes more)") {
		t.Errorf("Text(1 MiB) = …%q, want it to say 1048320 bytes were cut", got[len(got)-30:])
	}
}

// TestLimiter on a fake clock: 100,000 lines in one instant log Burst and
// count the rest; a second later one more line logs with the count.
func TestLimiter(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	l := New(hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Trace}), func() time.Time { return now })
	for range 100000 {
		l.Log(hclog.Warn, "result not committed")
	}
	if got := strings.Count(buf.String(), "result not committed"); got != Burst {
		t.Errorf("100,000 lines at once logged %d, want %d", got, Burst)
	}
	now = now.Add(Every)
	l.Log(hclog.Warn, "result not committed")
	if !strings.Contains(buf.String(), "count=99990") || strings.Count(buf.String(), "result not committed") != Burst+1 {
		t.Errorf("a second later: want the dropped count 99990 and one more line:\n%s", buf.String())
	}
	l.Log(hclog.Warn, "dropped")
	l.Flush()
	if !strings.Contains(buf.String(), "count=1") {
		t.Errorf("Flush did not report the line dropped:\n%s", buf.String())
	}
}
