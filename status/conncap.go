package status

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Connection bounds of the status server: 20,000 keep-alive
// connections that each asked /healthz once held 20,000 file descriptors,
// so a worker could not join the coordinator's gRPC port. The page, its
// stream and a Prometheus scrape need a handful.
const (
	// MaxHTTPConns caps the open connections of the status server. When
	// it is reached, a new connection closes the one idle longest; with
	// none idle, the new one is closed.
	MaxHTTPConns = 256
	// MaxHTTPConnsPerAddr caps one address's open connections: a browser
	// opens six, a scraper one.
	MaxHTTPConnsPerAddr = 32
)

// connCap is the status server's listener: it admits connections within
// MaxHTTPConns and MaxHTTPConnsPerAddr and tracks which are idle between
// requests (the server's ConnState hook) to make room for new ones.
type connCap struct {
	net.Listener
	total, perAddr int

	mu      sync.Mutex
	open    map[string]*capConn // by remote address
	perHost map[string]int
	refused int // connections closed on arrival, in all
}

// capConn is one admitted connection; its first Close frees its place.
type capConn struct {
	net.Conn
	l         *connCap
	remote    string
	host      string
	idleSince time.Time // zero while a request is being read or served; guarded by l.mu
	closeOnce sync.Once
	forgotten bool // guarded by l.mu
}

func newConnCap(lis net.Listener, total, perAddr int) *connCap {
	return &connCap{Listener: lis, total: total, perAddr: perAddr, open: make(map[string]*capConn), perHost: make(map[string]int)}
}

// Accept returns the next connection within the caps.
func (l *connCap) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if cc := l.admit(c); cc != nil {
			return cc, nil
		}
	}
}

// admit registers c, making room by closing the longest idle connection
// when every place is taken, or closes c and returns nil.
func (l *connCap) admit(c net.Conn) *capConn {
	remote := c.RemoteAddr().String()
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	l.mu.Lock()
	var victim *capConn
	if l.perHost[host] >= l.perAddr {
		return l.refuseLocked(c)
	}
	if len(l.open) >= l.total {
		for _, o := range l.open {
			if !o.idleSince.IsZero() && (victim == nil || o.idleSince.Before(victim.idleSince)) {
				victim = o
			}
		}
		if victim == nil {
			return l.refuseLocked(c)
		}
		l.forgetLocked(victim)
	}
	cc := &capConn{Conn: c, l: l, remote: remote, host: host}
	l.open[remote] = cc
	l.perHost[host]++
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
	return cc
}

func (l *connCap) refuseLocked(c net.Conn) *capConn {
	l.refused++
	l.mu.Unlock()
	c.Close()
	return nil
}

func (l *connCap) forgetLocked(cc *capConn) {
	if cc.forgotten {
		return
	}
	cc.forgotten = true
	delete(l.open, cc.remote)
	if l.perHost[cc.host]--; l.perHost[cc.host] <= 0 {
		delete(l.perHost, cc.host)
	}
}

// Close frees the connection's place and closes it.
func (cc *capConn) Close() error {
	cc.closeOnce.Do(func() {
		cc.l.mu.Lock()
		cc.l.forgetLocked(cc)
		cc.l.mu.Unlock()
	})
	return cc.Conn.Close()
}

// connState is the server's ConnState hook: it notes when a connection
// waits idle between requests (keep-alive) and when it is busy again.
func (l *connCap) connState(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cc := l.open[c.RemoteAddr().String()]; cc != nil {
		if s == http.StateIdle {
			cc.idleSince = time.Now()
		} else {
			cc.idleSince = time.Time{}
		}
	}
}

// counts returns the open connections and those refused, for tests.
func (l *connCap) counts() (open, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open), l.refused
}
