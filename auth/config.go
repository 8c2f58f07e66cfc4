package auth

import (
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Config is one side's security settings, straight from the flags. The zero
// Config means plaintext and no token (fine on loopback).
type Config struct {
	Token    Token  // --token / NQUEENS_TOKEN; unset = no check (server) or none sent (client)
	CertFile string // --tls-cert: PEM certificate (server: required for TLS; client: for mutual TLS)
	KeyFile  string // --tls-key: its PEM private key
	CAFile   string // --tls-ca: server: require client certs signed by these CAs; client: trust these CAs for the server
	// ServerName (client only) is the name expected in the server's
	// certificate when it differs from the dialled host.
	ServerName string
}

// String prints the settings without the token, so a Config can be logged.
func (c Config) String() string {
	tok := "none"
	if c.Token.IsSet() {
		tok = redacted
	}
	return fmt.Sprintf("{token:%s cert:%q key:%q ca:%q server_name:%q}", tok, c.CertFile, c.KeyFile, c.CAFile, c.ServerName)
}

// GoString keeps %#v from printing the token.
func (c Config) GoString() string { return "auth.Config" + c.String() }

// ServerTLSEnabled reports whether ServerOptions serves TLS.
func (c Config) ServerTLSEnabled() bool { return c.CertFile != "" || c.KeyFile != "" }

// ClientTLSEnabled reports whether DialOptions dials with TLS: any of the
// TLS files or a ServerName turns it on.
func (c Config) ClientTLSEnabled() bool {
	return c.CAFile != "" || c.CertFile != "" || c.KeyFile != "" || c.ServerName != ""
}

// ServerOptions returns the grpc.NewServer options for c: TLS credentials
// (mutual when CAFile is set) and, when Token is set, the token interceptors
// (chained, so the caller may chain its own after them).
func (c Config) ServerOptions() ([]grpc.ServerOption, error) {
	if err := c.Token.Validate(); err != nil {
		return nil, err
	}
	var opts []grpc.ServerOption
	if c.ServerTLSEnabled() {
		creds, err := ServerTLS(c.CertFile, c.KeyFile, c.CAFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.Creds(creds))
	} else if c.CAFile != "" {
		return nil, errors.New("auth: --tls-ca on a server needs --tls-cert and --tls-key")
	}
	if c.Token.IsSet() {
		opts = append(opts,
			grpc.ChainUnaryInterceptor(UnaryServerInterceptor(c.Token)),
			grpc.ChainStreamInterceptor(StreamServerInterceptor(c.Token)))
	}
	return opts, nil
}

// DialOptions returns the grpc.NewClient options for c: transport credentials
// (TLS when ClientTLSEnabled, else plaintext) and the token on every RPC. Over
// TLS the token is marked as requiring transport security.
func (c Config) DialOptions() ([]grpc.DialOption, error) {
	if err := c.Token.Validate(); err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if c.ClientTLSEnabled() {
		var err error
		if creds, err = ClientTLS(c.CAFile, c.CertFile, c.KeyFile, c.ServerName); err != nil {
			return nil, err
		}
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if c.Token.IsSet() {
		opts = append(opts, grpc.WithPerRPCCredentials(PerRPCCredentials(c.Token, c.ClientTLSEnabled())))
	}
	return opts, nil
}

var _ credentials.PerRPCCredentials = tokenCreds{}
