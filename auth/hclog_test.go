package auth

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// TestHclogRedacts: the project's logger, text and JSON, never prints a Token
// or a Config's token, whatever the value is logged as.
func TestHclogRedacts(t *testing.T) {
	for _, js := range []bool{false, true} {
		var buf bytes.Buffer
		log := hclog.New(&hclog.LoggerOptions{Output: &buf, JSONFormat: js, Level: hclog.Trace})
		cfg := Config{Token: NewToken(secret), CAFile: "ca.pem"}
		log.Info("security", "auth", cfg, "token", cfg.Token, "ptr", &cfg, "list", []Token{cfg.Token}, "hidden", hidden{cfg.Token}, "map", map[string]Token{"t": cfg.Token})
		log.With("token", cfg.Token).Named("x").Warn("again", "cfg", cfg)
		if strings.Contains(buf.String(), secret) {
			t.Errorf("json=%v: hclog printed the token:\n%s", js, buf.String())
		}
		if !strings.Contains(buf.String(), redacted) {
			t.Errorf("json=%v: no %s in\n%s", js, redacted, buf.String())
		}
	}
}
