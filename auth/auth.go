package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// MetadataKey is the gRPC metadata key that carries the token, as
// "Bearer <token>" (the HTTP Authorization header's form, so grpcurl's
// -H 'authorization: Bearer ...' works).
const MetadataKey = "authorization"

// EnvToken is the environment variable the binaries read the token from when
// --token is not given.
const EnvToken = "NQUEENS_TOKEN"

// HealthPrefix is the method prefix that needs no token: Kubernetes probes,
// grpc-health-probe and cmd/nqueens-healthprobe carry none. Every other RPC, server
// reflection included (it would tell strangers what this port serves), needs
// the token when the server has one.
const HealthPrefix = "/grpc.health.v1.Health/"

const bearer = "bearer "

// redacted is what a Token prints as.
const redacted = "[REDACTED]"

// Token is the shared join token. It never prints: every fmt verb, JSON and
// text marshalling show "[REDACTED]" (or "" when unset), so a Token or a
// Config can go into a log line safely; Reveal is the only way out. It holds
// the token behind a pointer so that even printers that bypass methods
// (fmt on an unexported field, hclog's slice rendering) see an address, not
// the token. *Token is a flag.Value: flag.Var(&cfg.Token, "token", ...) keeps
// the token out of -h output too. The zero Token is unset.
type Token struct {
	v *string
}

// NewToken returns a Token holding s ("" gives an unset Token).
func NewToken(s string) Token {
	if s == "" {
		return Token{}
	}
	return Token{v: &s}
}

// Reveal returns the token itself, for the wire only.
func (t Token) Reveal() string {
	if t.v == nil {
		return ""
	}
	return *t.v
}

// IsSet reports whether t holds a non-empty token.
func (t Token) IsSet() bool { return t.Reveal() != "" }

func (t Token) String() string {
	if !t.IsSet() {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the token.
func (t Token) GoString() string { return fmt.Sprintf("auth.Token(%q)", t.String()) }

// Format keeps every other fmt verb (%x, %q, %d...) from printing the token.
func (t Token) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, t.GoString())
		return
	}
	fmt.Fprint(f, t.String())
}

// MarshalText keeps JSON, hclog's JSON output and encoders from printing the token.
func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Set implements flag.Value.
func (t *Token) Set(s string) error {
	if err := validateToken(s); err != nil {
		return err
	}
	*t = NewToken(s)
	return nil
}

// Validate checks that t can travel in gRPC metadata: printable ASCII without
// surrounding spaces. The error never contains the token.
func (t Token) Validate() error { return validateToken(t.Reveal()) }

func validateToken(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return fmt.Errorf("auth: token has a non-printable or non-ASCII byte at position %d", i)
		}
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("auth: token starts or ends with a space")
	}
	return nil
}

// Exempt reports whether fullMethod ("/package.Service/Method") is served
// without a token.
func Exempt(fullMethod string) bool { return strings.HasPrefix(fullMethod, HealthPrefix) }

// checker compares presented tokens with the server's in constant time. Both
// sides are hashed first so that not even the token's length leaks through
// timing (subtle.ConstantTimeCompare returns early on different lengths).
type checker struct {
	want [sha256.Size]byte
	off  bool // no server token: everything passes
}

func newChecker(token Token) checker {
	return checker{want: sha256.Sum256([]byte(token.Reveal())), off: !token.IsSet()}
}

// check returns nil or a codes.Unauthenticated status whose message never
// contains the token.
func (c checker) check(ctx context.Context, fullMethod string) error {
	if c.off || Exempt(fullMethod) {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(MetadataKey)
	switch {
	case len(vals) == 0:
		return status.Error(codes.Unauthenticated, "missing token: send metadata \"authorization: Bearer <token>\"")
	case len(vals) > 1:
		return status.Error(codes.Unauthenticated, "more than one authorization value")
	}
	v := vals[0]
	if len(v) < len(bearer) || !strings.EqualFold(v[:len(bearer)], bearer) {
		return status.Error(codes.Unauthenticated, "authorization is not of the form \"Bearer <token>\"")
	}
	got := sha256.Sum256([]byte(v[len(bearer):]))
	if subtle.ConstantTimeCompare(got[:], c.want[:]) != 1 {
		return status.Error(codes.Unauthenticated, "invalid token")
	}
	return nil
}

// UnaryServerInterceptor refuses unary RPCs without the right token with
// codes.Unauthenticated (health exempt). An unset token disables the check.
func UnaryServerInterceptor(token Token) grpc.UnaryServerInterceptor {
	c := newChecker(token)
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := c.check(ctx, info.FullMethod); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamServerInterceptor is UnaryServerInterceptor for streams: the check
// happens once, when the stream opens, before the handler runs.
func StreamServerInterceptor(token Token) grpc.StreamServerInterceptor {
	c := newChecker(token)
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := c.check(ss.Context(), info.FullMethod); err != nil {
			return err
		}
		return handler(srv, ss)
	}
}

// tokenCreds attaches the token to every RPC of a connection.
type tokenCreds struct {
	value      string // "Bearer <token>"
	requireTLS bool
}

func (c tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{MetadataKey: c.value}, nil
}

func (c tokenCreds) RequireTransportSecurity() bool { return c.requireTLS }

// PerRPCCredentials returns client credentials that send token on every RPC.
// With requireTLS, gRPC refuses to send it over a connection without
// transport security; pass false for plaintext (loopback, tests).
func PerRPCCredentials(token Token, requireTLS bool) credentials.PerRPCCredentials {
	return tokenCreds{value: "Bearer " + token.Reveal(), requireTLS: requireTLS}
}
