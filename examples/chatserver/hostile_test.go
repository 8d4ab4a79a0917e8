package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
)

// The hostile-connection test runs the server with short limits and checks
// that each kind of hostile client is dropped within a bound derived from
// the limit that should drop it, while every other limit is long enough
// that it cannot be what closed the connection. Connections are counted on
// the server's side, through http.Server.ConnState.

// long is the limit of everything a case does not test: longer than any
// bound, so that it cannot close a connection first.
const long = time.Minute

// rstAvoidanceDelay is how long net/http waits, after answering a request
// whose body it did not read to the end, before closing the connection
// (net/http's rstAvoidanceDelay).
const rstAvoidanceDelay = 500 * time.Millisecond

// slack is the margin of every upper bound: generous, for a loaded machine
// under -race. The test waits for it only when a connection stays open.
func slack(limit time.Duration) time.Duration { return 10*time.Second + 10*limit }

// connCounter counts the server's connections by their ConnState.
type connCounter struct {
	mu        sync.Mutex
	accepted  int
	open      map[net.Conn]time.Time // accepted, not closed: since when
	lifetimes []time.Duration        // of the closed ones
	changed   chan struct{}          // a signal after each change
}

func newConnCounter() *connCounter {
	return &connCounter{open: map[net.Conn]time.Time{}, changed: make(chan struct{}, 1)}
}

func (c *connCounter) hook(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	switch state {
	case http.StateNew:
		c.accepted++
		c.open[conn] = time.Now()
	case http.StateClosed, http.StateHijacked:
		c.lifetimes = append(c.lifetimes, time.Since(c.open[conn]))
		delete(c.open, conn)
	}
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond, called with c.mu held, holds, or until
// deadline; false means the deadline passed.
func (c *connCounter) waitFor(deadline time.Time, cond func() bool) bool {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-c.changed:
		case <-timer.C:
			c.mu.Lock()
			defer c.mu.Unlock()
			return cond()
		}
	}
}

// smallBuffers makes the kernel's send buffer of each accepted connection
// small. On loopback, autotuning lets a connection's buffers hold several
// megabytes before a writer blocks; with 8 KiB, a client that stops reading
// blocks the server after tens of kilobytes, which keeps the stream the
// test needs, times 50 clients, cheap under -race.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// hostileServer serves m with the limits l on a loopback port and returns
// its address and connection counter. It is closed when the test ends.
func hostileServer(t *testing.T, m model, l limits) (string, *connCounter) {
	t.Helper()
	opts := options{MaxBodyBytes: l.MaxBodyBytes, WriteTimeout: l.WriteTimeout}
	srv := newHTTPServer(newServer(loadEncoding(t), m, nil, opts), l)
	cc := newConnCounter()
	srv.ConnState = cc.hook
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(smallBuffers{ln})
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), cc
}

// dialAll opens n connections to addr, each with the smallest receive
// buffer the kernel allows after connecting, and closes them when the test
// ends.
func dialAll(t *testing.T, addr string, n int) []*net.TCPConn {
	t.Helper()
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns[i] = c.(*net.TCPConn)
		conns[i].SetReadBuffer(4 << 10)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return conns
}

// request is an HTTP/1.1 POST of body to path, kept alive.
func request(path, body string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: chatserver\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		path, len(body), body)
}

// checkDropped waits until the server has accepted n connections and
// closed them all, by start+bound, and checks that each lived at least
// limit. It returns the longest lifetime.
func checkDropped(t *testing.T, cc *connCounter, n int, start time.Time, limit, bound time.Duration) time.Duration {
	t.Helper()
	deadline := start.Add(bound)
	if !cc.waitFor(deadline, func() bool { return cc.accepted == n && len(cc.open) == 0 }) {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		t.Fatalf("after %v: %d of %d connections accepted, %d still open (limit %v)",
			bound, cc.accepted, n, len(cc.open), limit)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	shortest, longest := slices.Min(cc.lifetimes), slices.Max(cc.lifetimes)
	if shortest < limit {
		t.Errorf("a connection closed after %v, before the limit %v: something else closed it", shortest, limit)
	}
	t.Logf("%d connections closed %v after the last was set up; lifetimes %v to %v (limit %v, bound %v)",
		n, time.Since(start).Round(time.Millisecond), shortest.Round(time.Millisecond), longest.Round(time.Millisecond), limit, bound)
	return longest
}

// checkServes checks that the server still answers a request.
func checkServes(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Post("http://"+addr+chatPath, "application/json", strings.NewReader(`{"messages": [{"role": "user", "content": "Hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request after the hostile clients: status %d", resp.StatusCode)
	}
}

// TestHostileConnections: slow senders, idle keep-alive connections and
// clients that stop reading a stream are each dropped within the limit
// meant for them.
func TestHostileConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 750 loopback connections")
	}
	const limit = 300 * time.Millisecond // the limit under test, in each case
	enc := loadEncoding(t)

	t.Run("slow bodies", func(t *testing.T) {
		// 200 clients send the headers of a request and then its body a
		// byte at a time, never finishing: -read-timeout ends each.
		const n = 200
		l := limits{ReadHeaderTimeout: long, ReadTimeout: limit, WriteTimeout: long, IdleTimeout: long,
			MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, standIn{enc}, l)
		conns := dialAll(t, addr, n)
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: chatserver\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{", chatPath)
		for _, c := range conns {
			if _, err := io.WriteString(c, head); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		stop := make(chan struct{})
		defer close(stop)
		for _, c := range conns {
			go func() {
				tick := time.NewTicker(limit / 5)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							return // the server has closed it
						}
					}
				}
			}()
		}
		checkDropped(t, cc, n, start, limit, limit+rstAvoidanceDelay+slack(limit))
		checkServes(t, addr)
	})

	t.Run("idle keep-alive", func(t *testing.T) {
		// 500 clients make a request, read the answer, and keep the
		// connection without a next request: -idle-timeout ends each.
		const n = 500
		l := limits{ReadHeaderTimeout: long, ReadTimeout: long, WriteTimeout: long, IdleTimeout: limit,
			MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, standIn{enc}, l)
		conns := dialAll(t, addr, n)
		req := request(chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`)
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(func() {
				if _, err := io.WriteString(c, req); err != nil {
					t.Error(err)
					return
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.Close {
					t.Errorf("status %d, close %v", resp.StatusCode, resp.Close)
				}
			})
		}
		wg.Wait()
		start := time.Now()
		checkDropped(t, cc, n, start, limit, limit+slack(limit))
		checkServes(t, addr)
	})

	t.Run("stopped readers", func(t *testing.T) {
		// 50 clients ask for a stream of 20000 tokens and read nothing of
		// it: the writes to each block once the buffers are full, and
		// -write-timeout ends each.
		const n, tokens = 50, 20000
		ids := enc.EncodeWithSpecialTokens("<|channel|>final<|message|>")
		word := enc.EncodeOrdinary(" word")
		if len(word) != 1 {
			t.Fatalf(`" word" is %d tokens`, len(word))
		}
		for range tokens {
			ids = append(ids, word[0])
		}
		ids = append(ids, enc.EncodeWithSpecialTokens("<|return|>")...)
		m := &replay{lines: [][]harmony.Token{ids}}
		l := limits{ReadHeaderTimeout: long, ReadTimeout: long, WriteTimeout: limit, IdleTimeout: long,
			MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, m, l)
		conns := dialAll(t, addr, n)
		req := request(chatPath, `{"messages": [{"role": "user", "content": "Hi"}], "stream": true}`)
		for _, c := range conns {
			if _, err := io.WriteString(c, req); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		checkDropped(t, cc, n, start, limit, limit+slack(limit))

		// A stream read to the end is not cut by the per-write deadline,
		// though it lasts longer than it.
		ids = append(enc.EncodeWithSpecialTokens("<|channel|>final<|message|>"), word[0], word[0], word[0])
		ids = append(ids, enc.EncodeWithSpecialTokens("<|return|>")...)
		srvOpts := options{WriteTimeout: limit, TokenDelay: limit / 4}
		slowModel := &replay{lines: [][]harmony.Token{ids}}
		h := newServer(enc, slowModel, nil, srvOpts)
		srv := newHTTPServer(h, l)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		defer srv.Close()
		began := time.Now()
		resp, err := http.Post("http://"+ln.Addr().String()+chatPath, "application/json",
			strings.NewReader(`{"messages": [{"role": "user", "content": "Hi"}], "stream": true}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
			t.Errorf("slow stream: %v, body %q", err, body)
		}
		if took := time.Since(began); took < limit {
			t.Errorf("the slow stream took %v, want over %v", took, limit)
		}
	})
}

// TestLimitFlags: the limits reach http.Server, its WriteTimeout stays 0
// (the deadlines are per write), and negative limits are refused.
func TestLimitFlags(t *testing.T) {
	l := defaultLimits
	srv := newHTTPServer(http.NotFoundHandler(), l)
	if srv.ReadHeaderTimeout != l.ReadHeaderTimeout || srv.ReadTimeout != l.ReadTimeout || srv.IdleTimeout != l.IdleTimeout ||
		srv.MaxHeaderBytes != l.MaxHeaderBytes || srv.WriteTimeout != 0 {
		t.Errorf("server %+v from limits %+v", srv, l)
	}
	for _, tc := range []struct{ flag, value string }{
		{"-read-header-timeout", "-1s"},
		{"-read-timeout", "-1ns"},
		{"-write-timeout", "-5ms"},
		{"-idle-timeout", "-1m"},
		{"-max-header-bytes", "0"},
		{"-max-body-bytes", "-1"},
	} {
		var stderr strings.Builder
		err := run(t.Context(), []string{tc.flag, tc.value}, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.flag+" "+tc.value) {
			t.Errorf("%s %s: %v, want an error naming it", tc.flag, tc.value, err)
		}
	}
}
