package status

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Server timeouts and limits: what each guards against.
const (
	// readHeaderTimeout stops a client that opens a connection and sends
	// its headers slowly (slowloris) from holding it.
	readHeaderTimeout = 5 * time.Second
	// readTimeout bounds reading a whole request; none has a body but the
	// login form's few bytes.
	readTimeout = 10 * time.Second
	// writeTimeout bounds writing a response to a client that stops
	// reading; /events and pprof lift it for themselves.
	writeTimeout = 30 * time.Second
	// idleTimeout closes keep-alive connections nobody uses: a page or a
	// scraper that comes back later opens a new one.
	idleTimeout = 15 * time.Second
	// maxHeaderBytes bounds a request's headers: a token and a cookie fit
	// many times over.
	maxHeaderBytes = 16 << 10
	// shutdownTimeout is how long Serve waits for requests in flight when
	// ctx ends, before closing what is left.
	shutdownTimeout = 5 * time.Second
)

// Serve listens on addr ("127.0.0.1:0" picks a port) and serves h until ctx
// ends, then shuts the server down: it returns the bound address at once
// and a channel that yields the server's end (nil after a clean shutdown)
// and is closed. Every request's context ends with ctx, so /events
// streams close and shutdown does not wait for them.
func Serve(ctx context.Context, addr string, h http.Handler, log hclog.Logger) (string, <-chan error, error) {
	return ServeTLS(ctx, addr, h, log, nil)
}

// ServeTLS is Serve over HTTPS with cfg (auth.ServerTLSConfig: the
// certificate is re-read when its files change); a nil cfg is plain HTTP.
func ServeTLS(ctx context.Context, addr string, h http.Handler, log hclog.Logger, cfg *tls.Config) (string, <-chan error, error) {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	return serveOn(ctx, newConnCap(raw, MaxHTTPConns, MaxHTTPConnsPerAddr), h, log, cfg)
}

// serveOn is ServeTLS on the capped listener lc.
func serveOn(ctx context.Context, lc *connCap, h http.Handler, log hclog.Logger, cfg *tls.Config) (string, <-chan error, error) {
	var lis net.Listener = lc
	if cfg != nil {
		cfg = cfg.Clone()
		cfg.NextProtos = []string{"http/1.1"} // the server speaks HTTP/1.1 on this listener
		lis = tls.NewListener(lis, cfg)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         lc.connState,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
	}
	done := make(chan error, 1)
	go func() {
		defer close(done)
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(lis) }()
		select {
		case err := <-errc:
			done <- err
			return
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		err := srv.Shutdown(sctx)
		if err != nil {
			srv.Close()
		}
		if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		done <- err
	}()
	return lis.Addr().String(), done, nil
}
