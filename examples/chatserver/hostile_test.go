package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hostile-connection test runs the server with one limit at a time, every
// other limit off, and checks that each kind of hostile client is dropped:
// the server closes every hostile connection, which its client holds open
// until the test ends, so that the limit under test is the only thing that
// can have closed it; and the server still answers a plain request while
// the hostile clients hold their connections, and after. Nothing is timed:
// connections are watched on the server's side, through
// http.Server.ConnState, and a wait ends only when the server has closed
// them all (or, for a hung test, after a minute).

// limit is the limit under test, in each case. Plain requests are held to
// it too, so it is long enough that a plain request never meets it unless
// the server stalls for that long.
const limit = time.Second

// hung ends a wait that something has hung: it bounds no outcome.
const hung = time.Minute

// connWatch records the connections the server has closed, by the address
// of their client.
type connWatch struct {
	mu      sync.Mutex
	closed  map[string]bool
	changed chan struct{} // a signal after each change
}

func newConnWatch() *connWatch {
	return &connWatch{closed: map[string]bool{}, changed: make(chan struct{}, 1)}
}

func (c *connWatch) hook(conn net.Conn, state http.ConnState) {
	if state != http.StateClosed && state != http.StateHijacked {
		return
	}
	c.mu.Lock()
	c.closed[conn.RemoteAddr().String()] = true
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond, called with c.mu held, holds; false means it
// did not within the time that ends a hung test.
func (c *connWatch) waitFor(cond func() bool) bool {
	timer := time.NewTimer(hung)
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
// its address and connection watch. It is closed when the test ends.
func hostileServer(t *testing.T, m model, l limits) (string, *connWatch) {
	t.Helper()
	opts := options{MaxBodyBytes: l.MaxBodyBytes, WriteTimeout: l.WriteTimeout}
	srv := newHTTPServer(newServer(testenc.Encoding(t), m, nil, opts), l)
	cc := newConnWatch()
	srv.ConnState = cc.hook
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
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
		require.NoError(t, err, "connection %d", i)
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

// checkDropped waits until the server has closed every one of conns, which
// their clients hold open.
func checkDropped(t *testing.T, cc *connWatch, conns []*net.TCPConn) {
	t.Helper()
	open := func() int {
		n := 0
		for _, c := range conns {
			if !cc.closed[c.LocalAddr().String()] {
				n++
			}
		}
		return n
	}
	if !cc.waitFor(func() bool { return open() == 0 }) {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		require.Fail(t, "the server still holds connections open", "after %v, %d of the %d", hung, open(), len(conns))
	}
}

// checkServes checks that the server still answers a request, on a
// connection of its own (not kept for the next: the limit under test may
// close it idle, while the next request is on its way).
func checkServes(t *testing.T, addr string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+chatPath, strings.NewReader(`{"messages": [{"role": "user", "content": "Hi"}]}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a plain request beside the hostile clients: status")
}

// TestHostileConnections: slow senders, idle keep-alive connections and
// clients that stop reading a stream are each dropped by the limit meant
// for them, the only one set, while the server goes on answering.
func TestHostileConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 750 loopback connections")
	}
	enc := testenc.Encoding(t)

	t.Run("slow bodies", func(t *testing.T) {
		// 200 clients send the headers of a request and then its body a
		// byte at a time, never finishing: -read-timeout ends each (and
		// -read-header-timeout and -idle-timeout, at 0, are the read
		// timeout too).
		const n = 200
		l := limits{ReadTimeout: limit, MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, standIn{enc}, l)
		conns := dialAll(t, addr, n)
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: chatserver\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{", chatPath)
		for _, c := range conns {
			_, err := io.WriteString(c, head)
			require.NoError(t, err)
		}
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
		checkServes(t, addr)
		checkDropped(t, cc, conns)
		checkServes(t, addr)
	})

	t.Run("idle keep-alive", func(t *testing.T) {
		// 500 clients make a request, read the answer, and keep the
		// connection without a next request: -idle-timeout ends each.
		const n = 500
		l := limits{IdleTimeout: limit, MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, standIn{enc}, l)
		conns := dialAll(t, addr, n)
		req := request(chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`)
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(func() {
				if _, err := io.WriteString(c, req); !assert.NoError(t, err) {
					return
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if !assert.NoError(t, err) {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode, "status")
				assert.False(t, resp.Close, "the server closes the connection")
			})
		}
		wg.Wait()
		checkServes(t, addr)
		checkDropped(t, cc, conns)
		checkServes(t, addr)
	})

	t.Run("stopped readers", func(t *testing.T) {
		// 50 clients ask for a stream of 20000 tokens and read nothing of
		// it: the writes to each block once the buffers are full, and
		// -write-timeout ends each.
		const n, tokens = 50, 20000
		ids := enc.EncodeWithSpecialTokens("<|channel|>final<|message|>")
		word := enc.EncodeOrdinary(" word")
		require.Len(t, word, 1, `" word"'s tokens`)
		for range tokens {
			ids = append(ids, word[0])
		}
		ids = append(ids, enc.EncodeWithSpecialTokens("<|return|>")...)
		m := &replay{lines: [][]harmony.Token{ids}}
		l := limits{WriteTimeout: limit, MaxHeaderBytes: 64 << 10, MaxBodyBytes: 8 << 20}
		addr, cc := hostileServer(t, m, l)
		conns := dialAll(t, addr, n)
		req := request(chatPath, `{"messages": [{"role": "user", "content": "Hi"}], "stream": true}`)
		for _, c := range conns {
			_, err := io.WriteString(c, req)
			require.NoError(t, err)
		}
		checkServes(t, addr)
		checkDropped(t, cc, conns)
		checkServes(t, addr)

		// A stream read to the end is not cut by the per-write deadline,
		// though it lasts longer than it: the server pauses a quarter of
		// the limit after each of its tokens, more than four.
		ids = append(enc.EncodeWithSpecialTokens("<|channel|>final<|message|>"), word[0], word[0], word[0])
		ids = append(ids, enc.EncodeWithSpecialTokens("<|return|>")...)
		require.Greater(t, len(ids), 4, "the slow stream's tokens: its pauses would not outlast the limit")
		srvOpts := options{WriteTimeout: limit, TokenDelay: limit / 4}
		slowModel := &replay{lines: [][]harmony.Token{ids}}
		h := newServer(enc, slowModel, nil, srvOpts)
		srv := newHTTPServer(h, l)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		go srv.Serve(ln)
		defer srv.Close()
		resp, err := http.Post("http://"+ln.Addr().String()+chatPath, "application/json",
			strings.NewReader(`{"messages": [{"role": "user", "content": "Hi"}], "stream": true}`))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if assert.NoError(t, err, "slow stream") {
			assert.True(t, strings.HasSuffix(string(body), "data: [DONE]\n\n"), "slow stream: body %q", body)
		}
	})
}

// TestLimitFlags: the limits reach http.Server, its WriteTimeout stays 0
// (the deadlines are per write), and negative limits are refused.
func TestLimitFlags(t *testing.T) {
	l := defaultLimits
	srv := newHTTPServer(http.NotFoundHandler(), l)
	assert.Equal(t, l.ReadHeaderTimeout, srv.ReadHeaderTimeout, "ReadHeaderTimeout")
	assert.Equal(t, l.ReadTimeout, srv.ReadTimeout, "ReadTimeout")
	assert.Equal(t, l.IdleTimeout, srv.IdleTimeout, "IdleTimeout")
	assert.Equal(t, l.MaxHeaderBytes, srv.MaxHeaderBytes, "MaxHeaderBytes")
	assert.Zero(t, srv.WriteTimeout, "WriteTimeout")
	for _, tc := range []struct{ flag, value string }{
		{"-read-header-timeout", "-1s"},
		{"-read-timeout", "-1ns"},
		{"-write-timeout", "-5ms"},
		{"-idle-timeout", "-1m"},
		{"-max-header-bytes", "0"},
		{"-max-body-bytes", "-1"},
		{"-max-concurrent", "-1"},
	} {
		var stderr strings.Builder
		err := run(t.Context(), []string{tc.flag, tc.value}, &stderr)
		assert.ErrorContains(t, err, tc.flag+" "+tc.value, "want an error naming the flag")
	}
}
