package status

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/auth"
)

// panickyHealth panics on Check: a handler bug.
type panickyHealth struct {
	healthpb.UnimplementedHealthServer
}

func (panickyHealth) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	panic("boom")
}

// TestGRPCServerOptions runs a real gRPC server with these options and the
// auth package's, on loopback: a panicking handler answers codes.Internal,
// the server lives on, auth still refuses, and the metrics count it all.
func TestGRPCServerOptions(t *testing.T) {
	reg := NewRegistry()
	ac := auth.Config{Token: auth.NewToken("tok")}
	aopts, err := ac.ServerOptions()
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(append(GRPCServerOptions(reg), aopts...)...)
	healthpb.RegisterHealthServer(srv, panickyHealth{})
	// Before any call, every method of the coordinator's services has its
	// series, at 0.
	before := scrape(t, reg)
	for _, want := range []string{
		`grpc_server_started_total{grpc_method="Work",grpc_service="nqueens.v1.CoordinatorService",grpc_type="bidi_stream"} 0`,
		`grpc_server_started_total{grpc_method="Join",grpc_service="nqueens.v1.CoordinatorService",grpc_type="unary"} 0`,
		`grpc_server_handled_total{grpc_code="OK",grpc_method="Join",grpc_service="nqueens.v1.CoordinatorService",grpc_type="unary"} 0`,
		`grpc_server_handling_seconds_count{grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"} 0`,
	} {
		if !strings.Contains(before, want+"\n") {
			t.Errorf("before any call, /metrics lacks %s:\n%s", want, grep(before, "grpc_server_started_total"))
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hc := healthpb.NewHealthClient(conn)
	for range 2 {
		_, err = hc.Check(ctx, &healthpb.HealthCheckRequest{})
		if grpcstatus.Code(err) != codes.Internal || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("Check on a panicking handler = %v, want codes.Internal naming the panic", err)
		}
	}
	// Auth still applies to everything but health (chained after ours).
	_, err = hc.List(ctx, &healthpb.HealthListRequest{})
	if grpcstatus.Code(err) != codes.Unimplemented {
		t.Errorf("List = %v, want Unimplemented (health is exempt from auth)", err)
	}
	text := scrape(t, reg)
	if !strings.Contains(text, "nqueens_grpc_panics_total 2\n") {
		t.Errorf("nqueens_grpc_panics_total is not 2:\n%s", grep(text, "panics"))
	}
	if want := `grpc_server_handled_total{grpc_code="Internal",grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"} 2`; !strings.Contains(text, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grep(text, "grpc_server_handled_total"))
	}
}

// scrape is the text exposition of reg.
func scrape(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// grep keeps the lines of text that contain s.
func grep(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
