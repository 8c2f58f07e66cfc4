package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// msTime is an RFC 3339 time with milliseconds, as every log line starts.
var msTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$`)

// TestLogTimesInMilliseconds: text and JSON log lines carry RFC 3339
// times with milliseconds (leases can be 100 ms: seconds ran together).
func TestLogTimesInMilliseconds(t *testing.T) {
	join := refusedAddr(t)
	for _, format := range []string{"text", "json"} {
		args := []string{"--join", join, "--join-timeout", "300ms"}
		if format == "json" {
			args = append(args, "--log-json")
		}
		var stdout, stderr bytes.Buffer
		run(context.Background(), args, &stdout, &stderr)
		line, _, _ := strings.Cut(stderr.String(), "\n")
		stamp, _, _ := strings.Cut(line, " ")
		if format == "json" {
			var m struct {
				Stamp string `json:"@timestamp"`
			}
			json.Unmarshal([]byte(line), &m)
			stamp = m.Stamp
		}
		if !msTime.MatchString(stamp) || !strings.Contains(line, "waiting for coordinator") {
			t.Errorf("%s log line %q: want it to start with an RFC 3339 time in milliseconds and say it waits", format, line)
		}
	}
}
