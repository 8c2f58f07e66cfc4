package coordinator

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/auth/authtest"
	"github.com/nqueens/nqueens/internal/connguard"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// Named timeouts of the connection tests.
const (
	// peerCloseWait is how long closedByPeer waits for an EOF: the server
	// closes a refused connection right after accepting it.
	peerCloseWait = 200 * time.Millisecond
	// exitSlack is what a run may take beyond its drain timeout to return
	// on a busy 2-core machine.
	exitSlack = 3 * time.Second
)

// closedByPeer reports whether the server closed c: reading what it sent
// (its HTTP/2 settings) ends with EOF or a reset within peerCloseWait.
func closedByPeer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(peerCloseWait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// countOpen returns how many of conns the server has not closed, checking
// them all at once.
func countOpen(conns []net.Conn) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !closedByPeer(c) {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return open
}

// idleKinds are the ways a connection can sit without joining: silent, in
// the middle of the HTTP/2 handshake, or past it with no RPC.
var idleKinds = []struct {
	name string
	send func(c net.Conn) error
}{
	{"silent", func(net.Conn) error { return nil }},
	{"preface only", func(c net.Conn) error { _, err := io.WriteString(c, http2.ClientPreface); return err }},
	{"handshake done", func(c net.Conn) error {
		if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
			return err
		}
		return http2.NewFramer(c, c).WriteSettings()
	}},
}

// dialIdle opens one connection of each idle kind to addr.
func dialIdle(t *testing.T, addr string) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for _, k := range idleKinds {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := k.send(c); err != nil {
			t.Fatalf("%s connection: %v", k.name, err)
		}
		cs = append(cs, c)
	}
	return cs
}

// slowLimits are the default limits with timeouts far longer than the
// test, so that only the shutdown path can be what closes connections.
func slowLimits(cfg Config) *connguard.Limits {
	l := cfg.connLimits()
	l.Handshake, l.Idle = time.Hour, time.Hour
	return &l
}

// TestIdleConnectionsDoNotDelayExit: connections that never finish the
// handshake or never join do not hold up the end of a run (one idle TCP
// connection delayed the exit by gRPC's 120 s handshake timeout, after
// the job ended and after a signal).
func TestIdleConnectionsDoNotDelayExit(t *testing.T) {
	checkLeaks(t)
	t.Run("job ends", func(t *testing.T) {
		cfg := testConfig(8, 0)
		cfg.DrainTimeout = 500 * time.Millisecond
		cfg.testConns = slowLimits(cfg)
		r := startJob(t, context.Background(), cfg)
		dialIdle(t, r.addr)
		time.Sleep(50 * time.Millisecond) // let the server accept them
		wait := startWorkers(context.Background(), r.addr)
		ended := time.Now()
		s, err := r.wait(t)
		checkTotal(t, s, err, 8)
		if d := time.Since(ended); d > 2*cfg.DrainTimeout+exitSlack {
			t.Errorf("Run returned %v after the job could end, want within the drain timeout (%v)", d.Round(time.Millisecond), cfg.DrainTimeout)
		}
		wait()
	})
	t.Run("interrupted", func(t *testing.T) {
		cfg := testConfig(8, 0)
		cfg.DrainTimeout = 500 * time.Millisecond
		cfg.testConns = slowLimits(cfg)
		ctx, cancel := context.WithCancel(context.Background())
		r := startJob(t, ctx, cfg)
		dialIdle(t, r.addr)
		time.Sleep(50 * time.Millisecond)
		cancel()
		stopped := time.Now()
		if _, err := r.wait(t); !errors.Is(err, ErrInterrupted) {
			t.Errorf("Run after cancel = %v, want ErrInterrupted", err)
		}
		if d := time.Since(stopped); d > 2*cfg.DrainTimeout+exitSlack {
			t.Errorf("Run returned %v after the cancel, want within the drain timeout (%v)", d.Round(time.Millisecond), cfg.DrainTimeout)
		}
	})
}

// TestHandshakeAndIdleTimeouts: a connection that does not finish its
// handshake within the handshake timeout, or does not join within the
// idle time, is closed by the server; a joined worker's is not.
func TestHandshakeAndIdleTimeouts(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(10, 0)
	lim := cfg.connLimits()
	lim.Handshake, lim.Idle = 300*time.Millisecond, 600*time.Millisecond
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	r := startJob(t, context.Background(), cfg)
	idle := dialIdle(t, r.addr)
	start := time.Now()
	for i, c := range idle {
		c.SetReadDeadline(time.Now().Add(eventTimeout))
		_, err := io.Copy(io.Discard, c) // until the server closes it
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%s connection still open after %v", idleKinds[i].name, eventTimeout)
		}
	}
	if d := time.Since(start); d < lim.Handshake/2 {
		t.Errorf("idle connections closed after %v, before the handshake timeout %v", d, lim.Handshake)
	}
	if open, _ := g.Counts(); open != 0 {
		t.Errorf("%d connections still counted open, want 0", open)
	}
	// A worker that joins and then computes for longer than the idle time
	// keeps its connection.
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	for _, err := range wait() {
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

// floodAddrs returns n loopback addresses other than 127.0.0.1 (Linux
// routes all of 127/8 to loopback); it skips the test elsewhere.
func floodAddrs(t *testing.T, n int) []*net.TCPAddr {
	t.Helper()
	addrs := make([]*net.TCPAddr, n)
	for i := range addrs {
		addrs[i] = &net.TCPAddr{IP: net.IPv4(127, 0, byte(1+i/250), byte(2+i%250))}
	}
	c, err := (&net.Dialer{LocalAddr: addrs[0]}).Dial("tcp", "127.0.0.1:1")
	if c != nil {
		c.Close()
	}
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skipf("cannot bind %v: %v", addrs[0], err)
	}
	return addrs
}

// raiseFDLimit raises RLIMIT_NOFILE to its hard limit and skips the test
// if that is below need.
func raiseFDLimit(t *testing.T, need uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	if lim.Cur < need && lim.Max > lim.Cur {
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if lim.Cur < need {
		t.Skipf("RLIMIT_NOFILE is %d, the test needs %d", lim.Cur, need)
	}
}

// flood opens perAddr idle connections from each of addrs to target at
// once and returns them.
func flood(t *testing.T, target string, addrs []*net.TCPAddr, perAddr int) []net.Conn {
	t.Helper()
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	errs := make(chan error, len(addrs))
	for _, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: a, Timeout: eventTimeout}
			for range perAddr {
				c, err := d.Dial("tcp", target)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	select {
	case err := <-errs:
		t.Fatalf("flood: %v", err)
	default:
	}
	return conns
}

// checkFloodJoin floods a job with idle connections, then checks that a
// real worker joins at once and the count is exact (4,400
// idle connections locked every worker out). First wave: addrs addresses
// with perAddr connections each, and one address with overCap (beyond
// its cap); second wave: more addresses, to push the total over its
// bound.
func checkFloodJoin(t *testing.T, lim connguard.Limits, addrs, perAddr, overCap, second int) {
	cfg := testConfig(10, 0)
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	r := startJob(t, context.Background(), cfg)
	all := floodAddrs(t, addrs+1+second)
	first := flood(t, r.addr, all[1:addrs+1], perAddr)
	over := flood(t, r.addr, all[:1], overCap)
	if kept := countOpen(over); kept != lim.PerAddr {
		t.Errorf("one address holds %d of its %d idle connections, want its cap %d", kept, overCap, lim.PerAddr)
	}
	more := flood(t, r.addr, all[addrs+1:], perAddr)
	// Every address holds its cap, unless the job's total is reached first
	// (the long variant's 4,992 stay under the default 16,640).
	want := min(lim.Total, (addrs+second)*perAddr+lim.PerAddr)
	waitFor(t, "the flood accepted", func() bool { open, _ := g.Counts(); return open == want })
	open, unjoined := g.Counts()
	t.Logf("%d idle connections opened; %d open on the server (%d unjoined)", len(first)+len(over)+len(more), open, unjoined)
	start := time.Now()
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	if d := time.Since(start); d > lim.Handshake/2 {
		t.Errorf("the worker needed %v to join and finish, want well under the handshake timeout %v", d, lim.Handshake)
	}
	if open, _ := g.Counts(); open > lim.Total {
		t.Errorf("%d connections open, want at most %d", open, lim.Total)
	}
	for _, err := range wait() {
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

// TestIdleFloodDoesNotLockOutWorkers is the short variant: a few hundred
// idle connections against lowered limits.
func TestIdleFloodDoesNotLockOutWorkers(t *testing.T) {
	checkLeaks(t)
	raiseFDLimit(t, 2000)
	lim := connguard.Limits{Total: 150, PerAddr: 20, Handshake: time.Minute, Idle: time.Minute}
	checkFloodJoin(t, lim, 6, 20, 60, 4) // 120 + 60 + 80 connections for 150 places
}

// TestIdleFloodDoesNotLockOutWorkersLong is the issue's own figure: a
// real worker joins while 5,000 idle connections are open, with the
// default limits.
func TestIdleFloodDoesNotLockOutWorkersLong(t *testing.T) {
	if !*longTests {
		t.Skip("5,000 connections; run with -long")
	}
	checkLeaks(t)
	raiseFDLimit(t, 12000)
	lim := testConfig(10, 0).connLimits()
	lim.Handshake, lim.Idle = time.Minute, time.Minute
	// 61 addresses at their cap (3,904), one over it, then 16 more: 5,056.
	checkFloodJoin(t, lim, 61, connguard.DefaultPerAddr, 2*connguard.DefaultPerAddr, 16)
}

// TestReconnectingFlood: attackers from a dozen addresses re-open every
// connection the server closes, so the places stay taken; a real worker
// still joins and the count is exact, because room is made at the
// expense of the addresses that hold the most.
func TestReconnectingFlood(t *testing.T) {
	checkLeaks(t)
	raiseFDLimit(t, 2000)
	cfg := testConfig(11, 0)
	lim := connguard.Limits{Total: 150, PerAddr: 20, Handshake: time.Minute, Idle: time.Minute}
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	r := startJob(t, context.Background(), cfg)
	stop := make(chan struct{})
	var attackers sync.WaitGroup
	for _, a := range floodAddrs(t, 12) {
		for range lim.PerAddr {
			attackers.Add(1)
			go func() {
				defer attackers.Done()
				d := net.Dialer{LocalAddr: a, Timeout: time.Second}
				for {
					select {
					case <-stop:
						return
					default:
					}
					c, err := d.Dial("tcp", r.addr)
					if err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					c.SetReadDeadline(time.Now().Add(eventTimeout))
					go func() { <-stop; c.Close() }()
					io.Copy(io.Discard, c) // until the server closes it
					c.Close()
				}
			}()
		}
	}
	defer func() { close(stop); attackers.Wait() }()
	waitFor(t, "the places taken", func() bool { open, _ := g.Counts(); return open == lim.Total })
	start := time.Now()
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 11)
	t.Logf("a worker joined and counted N=11 in %v under the flood (%d connections refused or pushed out)", time.Since(start).Round(time.Millisecond), g.Refused())
	for _, err := range wait() {
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

// TestEmbeddedWorkersOverTheCap: embedded workers all dial from loopback
// at once; the cap leaves room for them.
func TestEmbeddedWorkersOverTheCap(t *testing.T) {
	cfg := testConfig(9, 12)
	lim := cfg.connLimits()
	lim.PerAddr = 2
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	s, err := Run(ctx, cfg, hclog.NewNullLogger())
	checkTotal(t, s, err, 9)
	if g == nil || g.Refused() != 0 {
		t.Errorf("the guard refused %d connections of embedded workers, want 0", g.Refused())
	}
}

// TestJoinedOverTLSWithToken: over mutual TLS with a token, a Join with
// the token marks its connection joined (it stays open beyond the idle
// time), one with a wrong token does not (it is closed after it).
func TestJoinedOverTLSWithToken(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	ca, err := authtest.NewCA("test ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, err := ca.WriteCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.Issue(dir, "coordinator", "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	wcert, wkey, err := ca.Issue(dir, "worker", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	token := auth.NewToken("s3cret-token")
	cfg := testConfig(10, 0)
	cfg.ServerOptions, err = auth.Config{Token: token, CertFile: cert, KeyFile: key, CAFile: caFile}.ServerOptions()
	if err != nil {
		t.Fatal(err)
	}
	lim := cfg.connLimits()
	lim.Idle = 300 * time.Millisecond
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	r := startJob(t, context.Background(), cfg)
	client := func(tok string) (*grpc.ClientConn, []grpc.DialOption) {
		t.Helper()
		opts, err := auth.Config{Token: auth.NewToken(tok), CertFile: wcert, KeyFile: wkey, CAFile: caFile, ServerName: "localhost"}.DialOptions()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := grpc.NewClient(r.addr, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn, opts
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	join := &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version, Name: "probe"}
	bad, _ := client("wrong-token")
	if _, err := nqueenspb.NewCoordinatorServiceClient(bad).Join(ctx, join); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("Join with a wrong token = %v, want Unauthenticated", err)
	}
	good, opts := client(token.Reveal())
	if _, err := nqueenspb.NewCoordinatorServiceClient(good).Join(ctx, join); err != nil {
		t.Fatalf("Join with the token: %v", err)
	}
	waitFor(t, "the wrong token's connection closed", func() bool { open, unjoined := g.Counts(); return open == 1 && unjoined == 0 })
	time.Sleep(2 * lim.Idle)
	if open, unjoined := g.Counts(); open != 1 || unjoined != 0 {
		t.Errorf("after twice the idle time: %d open, %d unjoined; want the joined connection alone", open, unjoined)
	}
	good.Close()
	err = worker.Run(ctx, worker.Config{Join: r.addr, Slots: 1, Name: "tls", JoinTimeout: workerJoinTimeout, DialOptions: opts}, hclog.NewNullLogger())
	if err != nil {
		t.Errorf("worker over mutual TLS: %v", err)
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
}
