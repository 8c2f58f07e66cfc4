package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// join calls Join with backoff until it succeeds, fails for good, or
// cfg.JoinTimeout passes.
func join(ctx context.Context, client nqueenspb.CoordinatorServiceClient, cfg Config, log hclog.Logger) (*nqueenspb.JoinResponse, error) {
	deadline := time.Now().Add(cfg.JoinTimeout)
	req := &nqueenspb.JoinRequest{Name: cfg.Name, Slots: uint32(cfg.Slots), SolverVersion: solver.Version}
	pause := backoffMin
	for {
		actx, cancel := context.WithTimeout(ctx, min(joinAttemptTimeout, time.Until(deadline)))
		jr, err := client.Join(actx, req, grpc.WaitForReady(true))
		cancel()
		if err == nil {
			return jr, nil
		}
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded:
		default:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w at %s: %s", ErrJoin, cfg.Join, status.Convert(err).Message())
		}
		if time.Now().Add(pause).After(deadline) {
			return nil, fmt.Errorf("%w at %s within %v: %s", ErrJoin, cfg.Join, cfg.JoinTimeout, status.Convert(err).Message())
		}
		log.Debug("join failed; retrying", "error", err, "pause", pause)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pause = min(2*pause, backoffMax)
	}
}
