// Package connguard is the listener of a gRPC server whose callers must
// join before they work: it bounds what a peer without credentials can
// hold. Connections that finish no handshake, or that sit open without a
// successful Join, are closed; one address cannot hold more than a few of
// them; when every place is taken a new connection pushes out the oldest
// one that has not joined; and closing the listener closes every
// connection with no call in flight, so a server's Stop never waits for a
// handshake.
//
//	g := connguard.New(lis, connguard.DefaultLimits(total), log)
//	srv := grpc.NewServer(append(g.ServerOptions(), opts...)...)
//	srv.Serve(g)
package connguard

import (
	"container/list"
	"context"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
)

// Connection-level defences. Authentication happens per
// RPC, after a connection is accepted and its handshake done, so these
// bound what a peer without the token can hold: connections that finish
// no handshake, or that sit open without joining, are closed; one address
// cannot hold more than a few of them; and when every connection is taken,
// a new one pushes out the oldest that has not joined, so idle connections
// from anyone never lock a worker out.
const (
	// DefaultHandshake bounds the TLS and HTTP/2 handshake of a new
	// connection (grpc.ConnectionTimeout; gRPC's default is 120 s). A
	// worker needs a round trip or two; a connection that sends nothing
	// would hold a file descriptor and, until it times out, delay the
	// coordinator's exit (grpc's Stop waits for handshakes in progress).
	DefaultHandshake = 5 * time.Second
	// DefaultIdle is how long a connection that has not joined (no
	// successful Join on it) may stay open with no RPC in flight. Health
	// probes and grpcurl ask and leave at once; a worker joins on its first
	// RPC. Whatever keeps a connection open without asking anything is not
	// a worker.
	DefaultIdle = 10 * time.Second
	// DefaultPerAddr caps the connections one address (an IPv4 address,
	// an IPv6 /64, which one host usually has whole) holds open before they
	// join; a new one beyond it is closed at once. Joined workers do not
	// count, so any number of them may share an address behind a NAT; 64
	// leaves room for that many workers starting at the same moment.
	// Embedded workers add their number for loopback.
	DefaultPerAddr = 64
	// connLogInterval is the least time between two log lines about
	// refused or closed connections; the lines in between are counted.
	connLogInterval = 10 * time.Second
)

// Limits are the guard's bounds.
type Limits struct {
	Total     int           // open connections
	PerAddr   int           // unjoined connections per address (DefaultPerAddr)
	Loopback  int           // added to PerAddr for loopback addresses: a server's own embedded clients
	Handshake time.Duration // DefaultHandshake
	Idle      time.Duration // DefaultIdle
	Made      func(*Guard)  // tests: told the guard once it exists
	// JoinMethod is the full gRPC method whose success marks a connection
	// joined.
	JoinMethod string
}

// DefaultLimits are the limits of a server that holds total connections.
func DefaultLimits(total int) Limits {
	return Limits{Total: total, PerAddr: DefaultPerAddr, Handshake: DefaultHandshake, Idle: DefaultIdle}
}

// Guard is the server's listener: it admits connections within the
// limits, tracks which have joined (a successful Join on them) and which
// have RPCs in flight, through the interceptors of serverOptions, and
// closes those that break the rules. Closing it also closes every
// connection with no RPC in flight, so that gRPC's Stop and GracefulStop,
// which wait for handshakes in progress, return at once.
type Guard struct {
	net.Listener
	lim Limits
	log hclog.Logger

	mu       sync.Mutex            // guards every field below and the guardConns' fields
	conns    map[string]*guardConn // open connections by remote address
	unjoined unjoinedSet
	closed   bool
	stats    connStats // since the last log line
	refusals int       // connections refused or closed before joining, in all
	lastLog  time.Time
}

// connStats counts the connections the guard refused or closed.
type connStats struct {
	perAddr, full, evicted, idle int
}

// guardConn is one admitted connection.
type guardConn struct {
	net.Conn
	g      *Guard
	remote string // RemoteAddr().String(), the key of g.conns and of peer.Addr
	key    string // addrKey

	// Guarded by g.mu.
	elem       *list.Element // in its address's list in g.unjoined; nil once joined or gone
	gone       bool          // closed, or pushed out
	active     int           // RPCs in flight
	lastActive time.Time     // when the last RPC ended, or the accept
	timer      *time.Timer   // the idle check; stopped once joined
	closeOnce  sync.Once
}

// New guards lis with the limits lim; log gets a summary of refusals at
// most every connLogInterval.
func New(lis net.Listener, lim Limits, log hclog.Logger) *Guard {
	g := &Guard{Listener: lis, lim: lim, log: log, conns: make(map[string]*guardConn),
		unjoined: unjoinedSet{addrs: make(map[string]*addrConns)}}
	if lim.Made != nil {
		lim.Made(g)
	}
	return g
}

// Refused returns how many connections were refused or closed before
// joining.
func (g *Guard) Refused() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refusals + g.stats.perAddr + g.stats.full + g.stats.evicted + g.stats.idle
}

// Counts returns the open and the unjoined connections.
func (g *Guard) Counts() (open, unjoined int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns), g.unjoined.n
}

// ServerOptions are the gRPC server options the guard needs: the short
// handshake timeout and the interceptors that see joins and RPCs.
func (g *Guard) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(g.lim.Handshake),
		grpc.ChainUnaryInterceptor(g.unary),
		grpc.ChainStreamInterceptor(g.stream),
	}
}

// Accept returns the next connection within the limits; those beyond
// them are closed here and never reach gRPC.
func (g *Guard) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if gc := g.admit(c); gc != nil {
			return gc, nil
		}
	}
}

// admit registers c, or closes it and returns nil: over the per-address
// cap, or every connection taken by joined workers. When the total is
// reached, the oldest unjoined connection of the address that holds the
// most is closed to make room: a lone worker is pushed out only by a
// flood from as many addresses as there are places.
func (g *Guard) admit(c net.Conn) *guardConn {
	remote := c.RemoteAddr()
	key, loop := addrKey(remote)
	var victim *guardConn
	g.mu.Lock()
	limit := g.lim.PerAddr
	if loop {
		limit += g.lim.Loopback
	}
	refuse := func(count *int) *guardConn {
		*count++
		g.logLocked()
		g.mu.Unlock()
		c.Close()
		return nil
	}
	switch {
	case g.closed:
		g.mu.Unlock()
		c.Close()
		return nil
	case g.unjoined.count(key) >= limit:
		return refuse(&g.stats.perAddr)
	case len(g.conns) >= g.lim.Total:
		victim = g.unjoined.heaviestOldest()
		if victim == nil {
			return refuse(&g.stats.full)
		}
		g.dropLocked(victim)
		g.stats.evicted++
	}
	gc := &guardConn{Conn: c, g: g, remote: remote.String(), key: key, lastActive: time.Now()}
	g.unjoined.add(gc)
	g.conns[gc.remote] = gc
	gc.timer = time.AfterFunc(g.lim.Idle, gc.checkIdle)
	g.logLocked()
	g.mu.Unlock()
	if victim != nil {
		victim.Conn.Close()
	}
	return gc
}

// dropLocked forgets gc (closed, or about to be); it can be called twice.
func (g *Guard) dropLocked(gc *guardConn) {
	if gc.gone {
		return
	}
	gc.gone = true
	gc.timer.Stop()
	g.unjoined.remove(gc)
	delete(g.conns, gc.remote)
}

// logLocked writes one line about the connections refused or closed
// since the last one, at most every connLogInterval.
func (g *Guard) logLocked() {
	if g.stats == (connStats{}) || time.Since(g.lastLog) < connLogInterval {
		return
	}
	g.refusals += g.stats.perAddr + g.stats.full + g.stats.evicted + g.stats.idle
	g.log.Warn("connections refused or closed before joining",
		"over_address_cap", g.stats.perAddr, "all_taken", g.stats.full,
		"pushed_out", g.stats.evicted, "idle", g.stats.idle,
		"open", len(g.conns), "unjoined", g.unjoined.n)
	g.stats, g.lastLog = connStats{}, time.Now()
}

// Close stops accepting and closes every connection with no RPC in
// flight: handshakes in progress, idle connections. Those with RPCs are
// left to GracefulStop's drain (or Stop).
func (g *Guard) Close() error {
	g.mu.Lock()
	g.closed = true
	var idle []*guardConn
	for _, gc := range g.conns {
		if gc.active == 0 {
			g.dropLocked(gc)
			idle = append(idle, gc)
		}
	}
	g.mu.Unlock()
	for _, gc := range idle {
		gc.Conn.Close()
	}
	return g.Listener.Close()
}

// Cut closes the connection from remote (a peer address as gRPC's peer
// package gives it), whatever runs on it: for a session the server ended
// for what its client did. Ending the stream is not enough when the
// client does not read: the status waits behind the data it never reads,
// and the client stays blocked in Send as long as it likes.
// It reports whether the connection was open.
func (g *Guard) Cut(remote string) bool {
	g.mu.Lock()
	gc := g.conns[remote]
	g.mu.Unlock()
	if gc == nil {
		return false
	}
	gc.Close()
	return true
}

// Close closes the connection and forgets it.
func (gc *guardConn) Close() error {
	err := net.ErrClosed
	gc.closeOnce.Do(func() {
		gc.g.mu.Lock()
		gc.g.dropLocked(gc)
		gc.g.mu.Unlock()
		err = gc.Conn.Close()
	})
	return err
}

// checkIdle runs DefaultIdle after the accept or the last RPC: it closes
// an unjoined connection that has had no RPC in flight since.
func (gc *guardConn) checkIdle() {
	g := gc.g
	g.mu.Lock()
	if gc.gone || gc.elem == nil {
		g.mu.Unlock()
		return
	}
	if idle := time.Since(gc.lastActive); gc.active > 0 || idle < g.lim.Idle {
		gc.timer.Reset(max(g.lim.Idle-idle, time.Millisecond))
		g.mu.Unlock()
		return
	}
	g.stats.idle++
	g.logLocked()
	g.mu.Unlock()
	gc.Close()
}

// rpcStarted and rpcEnded track the RPCs in flight on the connection of
// ctx's peer; a Join that succeeded marks the connection joined.
func (g *Guard) rpcStarted(ctx context.Context) *guardConn {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gc := g.conns[p.Addr.String()]
	if gc != nil {
		gc.active++
	}
	return gc
}

func (g *Guard) rpcEnded(gc *guardConn, joined bool) {
	if gc == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gc.active--
	gc.lastActive = time.Now()
	if joined && gc.elem != nil && !gc.gone {
		g.unjoined.remove(gc)
		gc.timer.Stop()
	}
}

// unary and stream are the guard's interceptors. Whether they run before
// or after the token check, a Join's nil error means it passed both.
func (g *Guard) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	gc := g.rpcStarted(ctx)
	resp, err := handler(ctx, req)
	g.rpcEnded(gc, err == nil && info.FullMethod == g.lim.JoinMethod)
	return resp, err
}

func (g *Guard) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	gc := g.rpcStarted(ss.Context())
	err := handler(srv, ss)
	g.rpcEnded(gc, false)
	return err
}

// unjoinedSet holds the connections that have not joined, by address,
// oldest first, and finds the address that holds the most in O(1).
type unjoinedSet struct {
	addrs   map[string]*addrConns
	byCount []map[*addrConns]struct{} // byCount[k]: the addresses with k connections
	most    int                       // the largest k with byCount[k] not empty, or 0
	n       int                       // connections in all
}

// addrConns are one address's unjoined connections, oldest first.
type addrConns struct {
	key   string
	conns list.List // of *guardConn
}

func (u *unjoinedSet) count(key string) int {
	if a := u.addrs[key]; a != nil {
		return a.conns.Len()
	}
	return 0
}

// move files a under its count after it changed from was.
func (u *unjoinedSet) move(a *addrConns, was int) {
	if was > 0 {
		delete(u.byCount[was], a)
	}
	now := a.conns.Len()
	if now == 0 {
		delete(u.addrs, a.key)
	} else {
		for len(u.byCount) <= now {
			u.byCount = append(u.byCount, make(map[*addrConns]struct{}))
		}
		u.byCount[now][a] = struct{}{}
	}
	u.most = max(u.most, now)
	for u.most > 0 && len(u.byCount[u.most]) == 0 {
		u.most--
	}
}

func (u *unjoinedSet) add(gc *guardConn) {
	a := u.addrs[gc.key]
	if a == nil {
		a = &addrConns{key: gc.key}
		u.addrs[gc.key] = a
	}
	gc.elem = a.conns.PushBack(gc)
	u.n++
	u.move(a, a.conns.Len()-1)
}

// remove takes gc out if it is in; it can be called twice.
func (u *unjoinedSet) remove(gc *guardConn) {
	if gc.elem == nil {
		return
	}
	a := u.addrs[gc.key]
	a.conns.Remove(gc.elem)
	gc.elem = nil
	u.n--
	u.move(a, a.conns.Len()+1)
}

// heaviestOldest returns the oldest connection of an address with the
// most connections, or nil when the set is empty.
func (u *unjoinedSet) heaviestOldest() *guardConn {
	if u.n == 0 {
		return nil
	}
	for a := range u.byCount[u.most] {
		return a.conns.Front().Value.(*guardConn)
	}
	return nil
}

// addrKey is what the per-address cap counts by: the IP of an IPv4 peer,
// the /64 of an IPv6 one; loop says it is a loopback address.
func addrKey(a net.Addr) (key string, loop bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String(), false
	}
	if v4 := t.IP.To4(); v4 != nil {
		return v4.String(), v4.IsLoopback()
	}
	return t.IP.Mask(net.CIDRMask(64, 128)).String() + "/64", t.IP.IsLoopback()
}
