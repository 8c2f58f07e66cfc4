package worker

import (
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// HealthServer serves grpc.health.v1 for a worker process, so Kubernetes
// gRPC probes and cmd/nqueens-healthprobe can watch a worker that has no gRPC
// server of its own.
type HealthServer struct {
	srv  *grpc.Server
	hs   *health.Server
	addr string
	done chan struct{}
}

// ServeHealth listens on addr and reports SERVING until Close.
func ServeHealth(addr string) (*HealthServer, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health listener: %w", err)
	}
	h := &HealthServer{srv: grpc.NewServer(), hs: health.NewServer(), addr: lis.Addr().String(), done: make(chan struct{})}
	healthpb.RegisterHealthServer(h.srv, h.hs)
	go func() {
		defer close(h.done)
		h.srv.Serve(lis)
	}()
	return h, nil
}

// Addr is the bound address.
func (h *HealthServer) Addr() string { return h.addr }

// Close reports NOT_SERVING and stops the server.
func (h *HealthServer) Close() {
	h.hs.Shutdown()
	h.srv.Stop()
	<-h.done
}
