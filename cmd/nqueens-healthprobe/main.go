package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/nqueens/nqueens/internal/cli"
)

// Exit statuses, as DESIGN.md §4 defines them for every nqueens binary.
const (
	exitServing  = 0
	exitNotReady = 1
	exitUsage    = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config holds the parsed flags.
type config struct {
	addr       string
	service    string
	timeout    time.Duration
	caFile     string
	certFile   string
	keyFile    string
	serverName string
}

// usageHead is the help's text before the flags.
const usageHead = `Usage: nqueens-healthprobe --addr HOST:PORT [--service NAME] [--timeout 2s] [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]

Calls grpc.health.v1 Check; exits 0 when SERVING, 1 otherwise, 2 on bad usage.

Flags:
`

// parse reads the flags; errors are usage errors (one line, no help). -h
// writes the help to help and returns flag.ErrHelp.
func parse(args []string, help io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("healthprobe", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "", "gRPC server `HOST:PORT` to ask (required)")
	fs.StringVar(&c.service, "service", "", "service `NAME` to ask about (\"\" = the whole server)")
	// The timeout bounds dialing and the call together, so a hung server
	// counts as unhealthy instead of blocking the container runtime's probe.
	fs.DurationVar(&c.timeout, "timeout", 2*time.Second, "give up after this long and report not serving")
	fs.StringVar(&c.caFile, "tls-ca", "", "PEM `FILE` of the CA that signed the server's certificate (enables TLS)")
	fs.StringVar(&c.certFile, "tls-cert", "", "client certificate PEM `FILE`, for servers that require mutual TLS")
	fs.StringVar(&c.keyFile, "tls-key", "", "client key PEM `FILE`, for servers that require mutual TLS")
	fs.StringVar(&c.serverName, "tls-server-name", "", "`NAME` expected in the server's certificate (default: the host of --addr)")
	if err := cli.Parse(fs, args, help, usageHead); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%v (see healthprobe -h)", err)
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.addr == "":
		return c, errors.New("--addr is required")
	case c.timeout <= 0:
		return c, fmt.Errorf("--timeout must be positive, got %v", c.timeout)
	case (c.certFile == "") != (c.keyFile == ""):
		return c, errors.New("--tls-cert and --tls-key go together")
	case c.certFile != "" && c.caFile == "":
		return c, errors.New("--tls-cert needs --tls-ca")
	}
	return c, nil
}

// run is main without os.Exit, so tests can call it. The help (-h) goes to
// stdout; everything else to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitServing
	}
	if err != nil {
		fmt.Fprintf(stderr, "healthprobe: %v\n", err)
		return exitUsage
	}
	creds, err := transportCredentials(c)
	if err != nil {
		fmt.Fprintf(stderr, "healthprobe: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	status, err := check(ctx, c.addr, c.service, creds)
	if err != nil {
		fmt.Fprintf(stderr, "healthprobe: %s: %v\n", c.addr, err)
		return exitNotReady
	}
	if status != healthpb.HealthCheckResponse_SERVING {
		fmt.Fprintf(stderr, "healthprobe: %s: service %q is %s\n", c.addr, c.service, status)
		return exitNotReady
	}
	return exitServing
}

// check makes one Check call and returns the server's answer.
func check(ctx context.Context, addr, service string, creds credentials.TransportCredentials) (healthpb.HealthCheckResponse_ServingStatus, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN, fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN, fmt.Errorf("health check: %w", err)
	}
	return resp.GetStatus(), nil
}

// transportCredentials is plaintext without --tls-ca, TLS with it, and
// mutual TLS when a client certificate is given too.
func transportCredentials(c config) (credentials.TransportCredentials, error) {
	if c.caFile == "" {
		return insecure.NewCredentials(), nil
	}
	pem, err := os.ReadFile(c.caFile)
	if err != nil {
		return nil, fmt.Errorf("read --tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--tls-ca %s: no PEM certificate found", c.caFile)
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: c.serverName, MinVersion: tls.VersionTLS12}
	if c.certFile != "" {
		cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
		if err != nil {
			return nil, fmt.Errorf("load client key pair: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}
