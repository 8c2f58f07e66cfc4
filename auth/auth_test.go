package auth

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/auth/authtest"
)

// rpcTimeout bounds every test RPC: a hung handshake must fail the test, not hang it.
const rpcTimeout = 10 * time.Second

const secret = "s3cret-join-token-0123456789"

// testService answers EmptyCall and echoes FullDuplexCall: the non-exempt
// unary and stream RPCs the token must guard.
type testService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (testService) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	return &testgrpc.Empty{}, nil
}

func (testService) FullDuplexCall(s testgrpc.TestService_FullDuplexCallServer) error {
	for {
		if _, err := s.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := s.Send(&testgrpc.StreamingOutputCallResponse{}); err != nil {
			return err
		}
	}
}

// serve starts a loopback server with health, reflection and the test service.
func serve(t *testing.T, cfg Config) string {
	t.Helper()
	opts, err := cfg.ServerOptions()
	if err != nil {
		t.Fatalf("ServerOptions: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	testgrpc.RegisterTestServiceServer(srv, testService{})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func dial(t *testing.T, addr string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func dialCfg(t *testing.T, addr string, cfg Config) *grpc.ClientConn {
	t.Helper()
	opts, err := cfg.DialOptions()
	if err != nil {
		t.Fatalf("DialOptions: %v", err)
	}
	return dial(t, addr, opts...)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	t.Cleanup(cancel)
	return ctx
}

// calls runs one RPC of each kind and returns their errors.
type results struct{ health, healthWatch, unary, stream, reflect error }

func callAll(ctx context.Context, conn *grpc.ClientConn) results {
	var r results
	_, r.health = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		r.healthWatch = err
	} else {
		_, r.healthWatch = w.Recv()
	}
	_, r.unary = testgrpc.NewTestServiceClient(conn).EmptyCall(ctx, &testgrpc.Empty{})
	r.stream = echo(ctx, conn)
	if s, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx); err != nil {
		r.reflect = err
	} else {
		if err := s.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && err != io.EOF {
			r.reflect = err
		} else {
			_, r.reflect = s.Recv()
		}
	}
	return r
}

func echo(ctx context.Context, conn *grpc.ClientConn) error {
	s, err := testgrpc.NewTestServiceClient(conn).FullDuplexCall(ctx)
	if err != nil {
		return err
	}
	if err := s.Send(&testgrpc.StreamingOutputCallRequest{}); err != nil && err != io.EOF {
		return err
	}
	if _, err := s.Recv(); err != nil {
		return err
	}
	s.CloseSend()
	return nil
}

func wantCode(t *testing.T, what string, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Errorf("%s: code %v (%v), want %v", what, got, err, want)
	}
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("%s: error %q contains the token", what, err)
	}
}

func TestToken(t *testing.T) {
	addr := serve(t, Config{Token: NewToken(secret)})
	for _, tc := range []struct {
		name  string
		token Token
		want  codes.Code
	}{
		{"right token", NewToken(secret), codes.OK},
		{"wrong token", NewToken("s3cret-join-token-012345678X"), codes.Unauthenticated},
		{"prefix of token", NewToken(secret[:10]), codes.Unauthenticated},
		{"no token", Token{}, codes.Unauthenticated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := callAll(ctxT(t), dialCfg(t, addr, Config{Token: tc.token}))
			wantCode(t, "health Check", r.health, codes.OK)
			wantCode(t, "health Watch", r.healthWatch, codes.OK)
			wantCode(t, "unary", r.unary, tc.want)
			wantCode(t, "stream", r.stream, tc.want)
			wantCode(t, "reflection", r.reflect, tc.want)
		})
	}
}

func TestNoServerToken(t *testing.T) {
	addr := serve(t, Config{})
	for _, tok := range []Token{{}, NewToken("anything")} {
		r := callAll(ctxT(t), dialCfg(t, addr, Config{Token: tok}))
		for name, err := range map[string]error{"health": r.health, "unary": r.unary, "stream": r.stream, "reflect": r.reflect} {
			wantCode(t, fmt.Sprintf("client token %q: %s", tok.Reveal(), name), err, codes.OK)
		}
	}
}

// TestMetadataForms sends hand-made authorization metadata.
func TestMetadataForms(t *testing.T) {
	addr := serve(t, Config{Token: NewToken(secret)})
	conn := dial(t, addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	c := testgrpc.NewTestServiceClient(conn)
	for _, tc := range []struct {
		vals []string
		want codes.Code
	}{
		{[]string{"Bearer " + secret}, codes.OK},
		{[]string{"bearer " + secret}, codes.OK},
		{[]string{"BEARER " + secret}, codes.OK},
		{[]string{secret}, codes.Unauthenticated},
		{[]string{"Basic " + secret}, codes.Unauthenticated},
		{[]string{"Bearer  " + secret}, codes.Unauthenticated},
		{[]string{"Bearer " + secret + " "}, codes.Unauthenticated},
		{[]string{"Bearer"}, codes.Unauthenticated},
		{[]string{"Bearer "}, codes.Unauthenticated},
		{[]string{"Bearer " + secret, "Bearer " + secret}, codes.Unauthenticated},
		{[]string{"Bearer wrong", "Bearer " + secret}, codes.Unauthenticated},
	} {
		md := metadata.MD{}
		for _, v := range tc.vals {
			md.Append(MetadataKey, v)
		}
		_, err := c.EmptyCall(metadata.NewOutgoingContext(ctxT(t), md), &testgrpc.Empty{})
		wantCode(t, fmt.Sprintf("authorization %q", tc.vals), err, tc.want)
	}
}

func TestEmptyServerTokenInterceptors(t *testing.T) {
	// The interceptors alone, with an empty token, let everything through.
	u := UnaryServerInterceptor(Token{})
	_, err := u(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/x.Y/Z"}, func(context.Context, any) (any, error) { return nil, nil })
	if err != nil {
		t.Errorf("unary with empty token: %v", err)
	}
}

func TestExempt(t *testing.T) {
	for m, want := range map[string]bool{
		"/grpc.health.v1.Health/Check":                              true,
		"/grpc.health.v1.Health/Watch":                              true,
		"/grpc.health.v1.Health/List":                               true,
		"/grpc.health.v1.HealthX/Check":                             false,
		"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": false,
		"/nqueens.v1.CoordinatorService/Join":                       false,
		"/grpc.health.v1.Health":                                    false,
		"/evil/grpc.health.v1.Health/Check":                         false,
	} {
		if got := Exempt(m); got != want {
			t.Errorf("Exempt(%q) = %v, want %v", m, got, want)
		}
	}
}

func TestTokenNeverPrints(t *testing.T) {
	tok := NewToken(secret)
	cfg := Config{Token: tok, CertFile: "c.pem", KeyFile: "k.pem", CAFile: "ca.pem"}
	js, _ := json.Marshal(cfg)
	jt, _ := json.Marshal(map[string]any{"token": tok})
	outs := []string{string(js), string(jt), cfg.String(), cfg.GoString(), tok.String(), tok.GoString()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
		outs = append(outs, fmt.Sprintf(verb, tok), fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg), fmt.Sprintf(verb, []any{tok, cfg}),
			fmt.Sprintf(verb, hidden{tok}), fmt.Sprintf(verb, []Token{tok}), fmt.Sprintf(verb, map[string]Token{"t": tok}))
	}
	for _, o := range outs {
		if strings.Contains(o, secret) || strings.Contains(o, fmt.Sprintf("%x", secret)) {
			t.Errorf("token printed: %s", o)
		}
	}
	if !tok.IsSet() || tok.Reveal() != secret || (Token{}).IsSet() || NewToken("").IsSet() {
		t.Error("IsSet or Reveal wrong")
	}
	if got := fmt.Sprint(Token{}); got != "" {
		t.Errorf("empty token prints %q, want \"\"", got)
	}
	if got, want := cfg.String(), `{token:[REDACTED] cert:"c.pem" key:"k.pem" ca:"ca.pem" server_name:""}`; got != want {
		t.Errorf("Config.String() = %s, want %s", got, want)
	}

	// As a flag, the token stays out of -h.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var c Config
	c.Token = NewToken(secret) // as if defaulted from the environment
	fs.Var(&c.Token, "token", "join token")
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if strings.Contains(help.String(), secret) {
		t.Errorf("-h prints the token: %s", help.String())
	}
	if err := fs.Parse([]string{"-token", "other-token"}); err != nil || c.Token.Reveal() != "other-token" {
		t.Errorf("-token other-token: %v, token set: %v", err, c.Token.Reveal() == "other-token")
	}
	if err := fs.Parse([]string{"-token", "bad\ntoken"}); err == nil || strings.Contains(err.Error(), "bad\ntoken") {
		t.Errorf("-token with a newline: %v", err)
	}
}

// hidden holds a Token in an unexported field, where fmt cannot call its methods.
type hidden struct{ t Token }

func TestTokenValidate(t *testing.T) {
	for tok, ok := range map[string]bool{"": true, "abc": true, "a b": true, " a": false, "a ": false, "a\nb": false, "é": false, "\x00": false} {
		if err := NewToken(tok).Validate(); (err == nil) != ok {
			t.Errorf("Token(%q).Validate() = %v, want ok=%v", tok, err, ok)
		}
	}
	if _, err := (Config{Token: NewToken("a\nb")}).ServerOptions(); err == nil {
		t.Error("ServerOptions accepted a token with a newline")
	}
	if _, err := (Config{Token: NewToken("a\nb")}).DialOptions(); err == nil {
		t.Error("DialOptions accepted a token with a newline")
	}
}

// pki is a test PKI: a good CA with server and client certificates, and a
// rogue CA with a client certificate of its own.
type pki struct {
	ca, rogueCA                     string
	serverCert, serverKey           string
	clientCert, clientKey           string
	rogueClientCert, rogueClientKey string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	var p pki
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ca, err := authtest.NewCA("good ca")
	must(err)
	rogue, err := authtest.NewCA("rogue ca")
	must(err)
	p.ca, err = ca.WriteCA(dir)
	must(err)
	p.rogueCA, err = rogue.WriteCA(dir)
	must(err)
	p.serverCert, p.serverKey, err = ca.Issue(dir, "coordinator", "127.0.0.1", "localhost")
	must(err)
	p.clientCert, p.clientKey, err = ca.Issue(dir, "worker")
	must(err)
	p.rogueClientCert, p.rogueClientKey, err = rogue.Issue(dir, "intruder")
	must(err)
	return p
}

func TestTLS(t *testing.T) {
	p := newPKI(t)
	addr := serve(t, Config{CertFile: p.serverCert, KeyFile: p.serverKey})
	for _, tc := range []struct {
		name string
		cfg  Config
		want codes.Code
	}{
		{"trusted ca", Config{CAFile: p.ca}, codes.OK},
		{"trusted ca, localhost name", Config{CAFile: p.ca, ServerName: "localhost"}, codes.OK},
		{"wrong server name", Config{CAFile: p.ca, ServerName: "elsewhere"}, codes.Unavailable},
		{"rogue ca", Config{CAFile: p.rogueCA}, codes.Unavailable},
		{"plaintext client", Config{}, codes.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testgrpc.NewTestServiceClient(dialCfg(t, addr, tc.cfg)).EmptyCall(ctxT(t), &testgrpc.Empty{})
			wantCode(t, "EmptyCall", err, tc.want)
		})
	}
}

func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	addr := serve(t, Config{Token: NewToken(secret), CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.ca})
	for _, tc := range []struct {
		name       string
		cfg        Config
		want       codes.Code
		wantHealth codes.Code
	}{
		{"good client cert and token", Config{Token: NewToken(secret), CAFile: p.ca, CertFile: p.clientCert, KeyFile: p.clientKey}, codes.OK, codes.OK},
		{"good client cert, no token", Config{CAFile: p.ca, CertFile: p.clientCert, KeyFile: p.clientKey}, codes.Unauthenticated, codes.OK},
		{"no client cert", Config{Token: NewToken(secret), CAFile: p.ca}, codes.Unavailable, codes.Unavailable},
		{"client cert from another ca", Config{Token: NewToken(secret), CAFile: p.ca, CertFile: p.rogueClientCert, KeyFile: p.rogueClientKey}, codes.Unavailable, codes.Unavailable},
		{"plaintext", Config{Token: NewToken(secret)}, codes.Unavailable, codes.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := dialCfg(t, addr, tc.cfg)
			_, err := healthpb.NewHealthClient(conn).Check(ctxT(t), &healthpb.HealthCheckRequest{})
			wantCode(t, "health", err, tc.wantHealth)
			_, err = testgrpc.NewTestServiceClient(conn).EmptyCall(ctxT(t), &testgrpc.Empty{})
			wantCode(t, "EmptyCall", err, tc.want)
			wantCode(t, "stream", echo(ctxT(t), conn), tc.want)
		})
	}
}

// TestTokenNeedsTLSWhenConfigured: credentials that require transport
// security are never sent over plaintext.
func TestTokenNeedsTLSWhenConfigured(t *testing.T) {
	addr := serve(t, Config{Token: NewToken(secret)})
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(PerRPCCredentials(NewToken(secret), true)))
	if err != nil {
		return // refused at dial time: fine
	}
	defer conn.Close()
	if _, err := testgrpc.NewTestServiceClient(conn).EmptyCall(ctxT(t), &testgrpc.Empty{}); err == nil {
		t.Error("a token that requires TLS was sent over plaintext")
	}
}

func TestTLSFileErrors(t *testing.T) {
	p := newPKI(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	garbage := filepath.Join(dir, "garbage.pem")
	os.WriteFile(garbage, []byte("not a certificate\n"), 0o600)
	for _, tc := range []struct {
		name    string
		err     error
		wantSub string
	}{
		{"server: missing cert", second(ServerTLS(missing, p.serverKey, "")), "missing.pem"},
		{"server: missing key", second(ServerTLS(p.serverCert, missing, "")), "missing.pem"},
		{"server: garbage cert", second(ServerTLS(garbage, p.serverKey, "")), "garbage.pem"},
		{"server: key of another cert", second(ServerTLS(p.serverCert, p.clientKey, "")), "key pair"},
		{"server: missing ca", second(ServerTLS(p.serverCert, p.serverKey, missing)), "missing.pem"},
		{"server: garbage ca", second(ServerTLS(p.serverCert, p.serverKey, garbage)), "no PEM certificate"},
		{"server: no key", second(ServerTLS(p.serverCert, "", "")), "both"},
		{"client: missing ca", second(ClientTLS(missing, "", "", "")), "missing.pem"},
		{"client: garbage ca", second(ClientTLS(garbage, "", "", "")), "no PEM certificate"},
		{"client: cert without key", second(ClientTLS(p.ca, p.clientCert, "", "")), "both"},
		{"client: missing cert", second(ClientTLS(p.ca, missing, p.clientKey, "")), "missing.pem"},
		{"config: ca without cert on server", second(Config{CAFile: p.ca}.ServerOptions()), "--tls-cert"},
		{"config: cert without key on server", second(Config{CertFile: p.serverCert}.ServerOptions()), "both"},
		{"config: client key without cert", second(Config{KeyFile: p.clientKey}.DialOptions()), "both"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.wantSub) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, tc.err, tc.wantSub)
		}
	}
	if err := second(ServerTLS(missing, p.serverKey, "")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error %v does not match os.ErrNotExist", err)
	}
}

func second[T any](_ T, err error) error { return err }
