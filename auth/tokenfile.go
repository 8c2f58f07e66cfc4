package auth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxTokenFile bounds what ReadTokenFile reads: a token is tens of bytes,
// so a bigger file is the wrong one.
const maxTokenFile = 4096

// ReadTokenFile returns the token held in the file at path (--token-file):
// a Kubernetes Secret mounted as a volume, or a file of mode 0600, keeps
// the token out of the command line and the environment. White space
// around it (the newline an editor or `echo` adds) is dropped. An empty
// file, a file over 4 KiB, or a token that cannot travel in gRPC metadata
// is an error, which never contains the token.
func ReadTokenFile(path string) (Token, error) {
	f, err := os.Open(path)
	if err != nil {
		return Token{}, fmt.Errorf("--token-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return Token{}, fmt.Errorf("--token-file %s: %w", path, err)
	}
	if len(b) > maxTokenFile {
		return Token{}, fmt.Errorf("--token-file %s: over %d bytes, not a token", path, maxTokenFile)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return Token{}, errors.New("--token-file " + path + ": empty")
	}
	if err := validateToken(s); err != nil {
		return Token{}, fmt.Errorf("--token-file %s: %w", path, err)
	}
	return NewToken(s), nil
}
