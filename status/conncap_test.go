package status

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
)

// keepAlive opens a connection from the loopback address from, asks
// /healthz on it and leaves it open (keep-alive); it returns nil if the
// server closed it instead of answering.
func keepAlive(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if !healthz(c) {
		c.Close()
		return nil
	}
	return c
}

// healthz asks /healthz on c and reports whether it answered 200 ok.
func healthz(c net.Conn) bool {
	if _, err := fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b := make([]byte, 3)
	n, _ := resp.Body.Read(b)
	return resp.StatusCode == http.StatusOK && string(b[:n]) == "ok\n"
}

// TestConnCaps: one address gets MaxHTTPConnsPerAddr
// keep-alive connections and no more; when MaxHTTPConns are open, a new
// one from elsewhere is still served, by closing one idle connection,
// and the server never holds more than MaxHTTPConns.
func TestConnCaps(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lc := newConnCap(raw, MaxHTTPConns, MaxHTTPConnsPerAddr)
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := serveOn(ctx, lc, NewHandler(newFakeJob(4), Options{}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	served, refused := 0, 0
	for range MaxHTTPConnsPerAddr + 5 {
		if c := keepAlive(t, addr, "127.0.0.2"); c != nil {
			held = append(held, c)
			served++
		} else {
			refused++
		}
	}
	if served != MaxHTTPConnsPerAddr || refused != 5 {
		t.Errorf("%d connections from one address: %d served, %d refused; want %d and 5", MaxHTTPConnsPerAddr+5, served, refused, MaxHTTPConnsPerAddr)
	}
	for a := 3; len(held) < MaxHTTPConns; a++ {
		if c := keepAlive(t, addr, fmt.Sprintf("127.0.0.%d", a)); c != nil {
			held = append(held, c)
		} else {
			t.Fatalf("connection %d (from 127.0.0.%d) refused below the caps", len(held)+1, a)
		}
	}
	extra := keepAlive(t, addr, "127.0.0.200")
	if extra == nil {
		t.Fatalf("with %d idle connections open, a new one was not served", MaxHTTPConns)
	}
	defer extra.Close()
	if open, _ := lc.counts(); open > MaxHTTPConns {
		t.Errorf("the server holds %d connections, want at most %d", open, MaxHTTPConns)
	}
	still := 0
	for _, c := range held {
		if healthz(c) {
			still++
		}
	}
	if still != MaxHTTPConns-1 {
		t.Errorf("%d of the %d earlier connections still served, want %d (one idle one closed)", still, MaxHTTPConns, MaxHTTPConns-1)
	}
}

// TestServeCapsConns: Serve's listener is the capped one.
func TestServeCapsConns(t *testing.T) {
	base := serve(t, NewHandler(newFakeJob(4), Options{}))
	addr := base[len("http://"):]
	refused := 0
	for range MaxHTTPConnsPerAddr + 1 {
		if c := keepAlive(t, addr, "127.0.0.3"); c != nil {
			defer c.Close()
		} else {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d keep-alive connections from one address to Serve: %d refused, want 1", MaxHTTPConnsPerAddr+1, refused)
	}
}
