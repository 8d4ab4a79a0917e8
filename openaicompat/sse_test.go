package openaicompat_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sseOptions are fixed response options: ids 1, 2, 3, … and a fixed clock.
func sseOptions() *openaicompat.ResponseOptions {
	n := 0
	return &openaicompat.ResponseOptions{
		Model: "gpt-oss-120b", Created: 1751112000,
		IDGenerator: func() string { n++; return strconv.Itoa(n) },
	}
}

// wireJSON is v as the wire carries it: encoding/json without HTML
// escaping, on one line.
func wireJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	require.NoError(t, e.Encode(v))
	return strings.TrimSuffix(b.String(), "\n")
}

// sseSampled has markup-like text, to show it is not HTML-escaped.
const sseSampled = `<|channel|>analysis<|message|>Compare <a> & <b>.<|end|>` +
	`<|start|>assistant<|channel|>final<|message|>a < b & b > c<|return|>`

// checkStreamHeaders checks that rec holds the start of an event stream:
// status 200 and the headers of one.
func checkStreamHeaders(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	want := map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
	for k, v := range want {
		assert.Equal(t, v, rec.Header().Get(k), k)
	}
	assert.Equal(t, http.StatusOK, rec.Code, "status")
}

func TestSSEWriterChat(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	require.NoError(t, sse.Start())
	require.True(t, rec.Flushed, "after Start: not flushed")
	require.Zero(t, rec.Body.Len(), "after Start: body %q", rec.Body)
	checkStreamHeaders(t, rec)

	c, err := openaicompat.NewChatStreamConverter(enc, sseOptions())
	require.NoError(t, err)
	var want strings.Builder
	for _, tok := range toks {
		chunks, err := c.Process(tok)
		require.NoError(t, err)
		for _, ch := range chunks {
			want.WriteString("data: " + wireJSON(t, ch) + "\n\n")
		}
		require.NoError(t, sse.WriteChunks(chunks...))
		require.Equal(t, want.String(), rec.Body.String(), "body not flushed up to the chunks written")
	}
	chunks, err := c.Finish(openaicompat.Sampling{})
	require.NoError(t, err)
	for _, ch := range chunks {
		want.WriteString("data: " + wireJSON(t, ch) + "\n\n")
	}
	require.NoError(t, sse.WriteChunks(chunks...))
	require.NoError(t, sse.WriteDone())
	want.WriteString("data: [DONE]\n\n")
	assert.Equal(t, want.String(), rec.Body.String(), "body")
	assert.Contains(t, rec.Body.String(), `"content":" &"`, "content HTML-escaped or missing")
	assert.NotContains(t, rec.Body.String(), `\u003c`, "content HTML-escaped")

	// The stream has ended.
	n := rec.Body.Len()
	for name, write := range map[string]func() error{
		"WriteChunks": func() error { return sse.WriteChunks(chunks...) },
		"WriteDone":   sse.WriteDone,
		"WriteChatError": func() error {
			return sse.WriteChatError(errors.New("late"))
		},
	} {
		assert.ErrorIs(t, write(), openaicompat.ErrStreamFinished, "%s after WriteDone", name)
	}
	assert.Equal(t, n, rec.Body.Len(), "written after the end: %q", rec.Body.String()[min(n, rec.Body.Len()):])
}

func TestSSEWriterResponses(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	c, err := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
	require.NoError(t, err)
	var want strings.Builder
	write := func(events []openaicompat.ResponseEvent) {
		t.Helper()
		for _, e := range events {
			want.WriteString("event: " + e.Type + "\ndata: " + wireJSON(t, e) + "\n\n")
		}
		require.NoError(t, sse.WriteEvents(events...))
	}
	for _, tok := range toks {
		events, err := c.Process(tok)
		require.NoError(t, err)
		write(events)
	}
	events, err := c.Finish(openaicompat.Sampling{})
	require.NoError(t, err)
	write(events)
	checkStreamHeaders(t, rec) // started by the first write
	assert.Equal(t, want.String(), rec.Body.String(), "body")
	end := rec.Body.String()[max(0, rec.Body.Len()-80):]
	assert.True(t, strings.HasSuffix(rec.Body.String(), "\n\n"), "end of body: %q", end)
	assert.NotContains(t, rec.Body.String(), "[DONE]", "end of body: %q", end)
	assert.Contains(t, rec.Body.String(), `"text":"a < b & b > c"`, "text HTML-escaped or missing")
}

// TestSSEWriterNothing: writing no chunks or events neither writes nor
// starts the stream.
func TestSSEWriterNothing(t *testing.T) {
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	require.NoError(t, sse.WriteChunks())
	require.NoError(t, sse.WriteEvents())
	assert.False(t, rec.Flushed, "flushed")
	assert.Empty(t, rec.Header(), "headers written")
	assert.Zero(t, rec.Body.Len(), "body written: %q", rec.Body)
	// So an error can still be answered with its status.
	require.NoError(t, sse.WriteChatError(&openaicompat.RequestError{Param: "messages", Code: "invalid_request", Err: openaicompat.ErrInvalidRequest}))
	assert.Equal(t, 400, rec.Code, "status")
}

func TestSSEWriterChatError(t *testing.T) {
	enc := testenc.Encoding(t)
	fail := &openaicompat.OutputError{MessageIndex: 1, Err: openaicompat.ErrUnexpectedMessage}
	wantStatus, wantBody := openaicompat.HTTPError(fail)

	t.Run("mid-stream", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		c, err := openaicompat.NewChatStreamConverter(enc, sseOptions())
		require.NoError(t, err)
		chunks, _ := c.Process(enc.EncodeWithSpecialTokens("<|channel|>")[0])
		require.NoError(t, sse.WriteChunks(chunks...))
		before := rec.Body.String()
		require.NoError(t, sse.WriteChatError(fail))
		checkStreamHeaders(t, rec)
		frame := strings.TrimPrefix(rec.Body.String(), before)
		assert.Equal(t, "data: "+wireJSON(t, wantBody)+"\n\n", frame, "error frame")
		assert.True(t, strings.HasPrefix(frame, `data: {"error":{"message":"model output message 1: message not written by the assistant","type":"server_error","param":null,"code":null}}`), "error frame %q", frame)
		assert.ErrorIs(t, sse.WriteDone(), openaicompat.ErrStreamFinished, "WriteDone after the error")
	})
	t.Run("not started", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		sse.WriteTimeout = time.Second // the recorder cannot set one: no error
		require.NoError(t, sse.WriteChatError(fail))
		assert.Equal(t, wantStatus, rec.Code, "status")
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), "Content-Type")
		assert.Equal(t, wireJSON(t, wantBody)+"\n", rec.Body.String(), "body")
		assert.ErrorIs(t, sse.WriteChunks(openaicompat.ChatCompletionChunk{}), openaicompat.ErrStreamFinished, "WriteChunks after the error")
	})
	t.Run("nil", func(t *testing.T) {
		rec := httptest.NewRecorder()
		require.NoError(t, openaicompat.NewSSEWriter(rec).WriteChatError(nil))
		assert.Equal(t, 500, rec.Code, "status")
		assert.Contains(t, rec.Body.String(), `"server_error"`, "body")
	})
}

func TestSSEWriterResponsesError(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	fail := errors.New("sampler: out of memory")

	t.Run("mid-stream", func(t *testing.T) {
		// twin is fed the same tokens; its Fail events are what the writer
		// must write.
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		c, _ := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
		twin, _ := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
		for _, tok := range toks[:8] {
			events, err := c.Process(tok)
			require.NoError(t, err)
			twin.Process(tok)
			require.NoError(t, sse.WriteEvents(events...))
		}
		before := rec.Body.String()
		require.NoError(t, sse.WriteResponsesError(c, fail))
		var want strings.Builder
		failEvents := twin.Fail(fail)
		for _, e := range failEvents {
			want.WriteString("event: " + e.Type + "\ndata: " + wireJSON(t, e) + "\n\n")
		}
		assert.Equal(t, want.String(), strings.TrimPrefix(rec.Body.String(), before), "last events")
		if assert.Len(t, failEvents, 2, "Fail events") {
			assert.Equal(t, "error", failEvents[0].Type, "Fail events")
			assert.Equal(t, "response.failed", failEvents[1].Type, "Fail events")
		}
		assert.Nil(t, c.Fail(fail), "the converter was not ended: Fail again gave events")
		assert.ErrorIs(t, sse.WriteEvents(failEvents...), openaicompat.ErrStreamFinished, "WriteEvents after the error")
	})
	t.Run("not started", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		c, _ := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
		require.NoError(t, sse.WriteResponsesError(c, fail))
		_, body := openaicompat.HTTPError(fail)
		assert.Equal(t, 500, rec.Code, "status")
		assert.Equal(t, wireJSON(t, body)+"\n", rec.Body.String(), "body")
		assert.Nil(t, c.Fail(fail), "the converter was not ended")

	})
}

func TestSSEWriterBadEventType(t *testing.T) {
	for _, typ := range []string{"", "response.created\ndata: {}", "a\rb"} {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		err := sse.WriteEvents(openaicompat.ResponseEvent{Type: "response.created"}, openaicompat.ResponseEvent{Type: typ})
		assert.ErrorContains(t, err, "event 1", "type %q: want an error for event 1", typ)
		assert.Zero(t, rec.Body.Len(), "type %q: written %q", typ, rec.Body)
		err2 := sse.WriteDone()
		assert.True(t, err2 == err, "type %q: then WriteDone: %v, want the same error", typ, err2)
	}
}

// failingWriter fails every Write after the first ok writes.
type failingWriter struct {
	header http.Header
	ok     int
	body   bytes.Buffer
	writes int
}

func (w *failingWriter) Header() http.Header { return w.header }
func (w *failingWriter) WriteHeader(int)     {}
func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.ok {
		return 0, io.ErrClosedPipe
	}
	return w.body.Write(p)
}

func TestSSEWriterWriteErrorSticks(t *testing.T) {
	w := &failingWriter{header: http.Header{}, ok: 1}
	sse := openaicompat.NewSSEWriter(w)
	chunk := openaicompat.ChatCompletionChunk{ID: "chatcmpl-1", Object: "chat.completion.chunk"}
	require.NoError(t, sse.WriteChunks(chunk))
	err := sse.WriteChunks(chunk)
	require.ErrorIs(t, err, io.ErrClosedPipe, "second write")
	for name, f := range map[string]func() error{
		"Start":               sse.Start,
		"WriteChunks":         func() error { return sse.WriteChunks(chunk) },
		"WriteEvents":         func() error { return sse.WriteEvents(openaicompat.ResponseEvent{Type: "error"}) },
		"WriteDone":           sse.WriteDone,
		"WriteChatError":      func() error { return sse.WriteChatError(errors.New("x")) },
		"WriteResponsesError": func() error { return sse.WriteResponsesError(nil, errors.New("x")) },
	} {
		got := f()
		assert.True(t, got == err, "%s after the failure: %v, want the same error %v", name, got, err)
	}
	assert.Equal(t, 2, w.writes, "writes (none after the failure)")
}

// deadlineWriter records the write deadlines set before each write.
type deadlineWriter struct {
	header    http.Header
	deadline  time.Time
	deadlines []time.Time // the deadline in force at each write
	sets      int         // calls of SetWriteDeadline
	flushes   int
}

func (w *deadlineWriter) Header() http.Header { return w.header }
func (w *deadlineWriter) WriteHeader(int)     {}
func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.deadlines = append(w.deadlines, w.deadline)
	return len(p), nil
}
func (w *deadlineWriter) FlushError() error { w.flushes++; return nil }
func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.deadline = t
	w.sets++
	return nil
}

// TestSSEWriterDeadline: each write sets a deadline of its own, WriteTimeout
// after the moment it sets it. That moment lies between the readings of the
// clock taken around the call, so the deadline lies between them plus
// WriteTimeout: an ordering of instants on the monotonic clock, which holds
// however slow the machine.
func TestSSEWriterDeadline(t *testing.T) {
	const timeout = 5 * time.Second
	w := &deadlineWriter{header: http.Header{}}
	sse := openaicompat.NewSSEWriter(w)
	sse.WriteTimeout = timeout
	for i := range 3 {
		sets, writes := w.sets, len(w.deadlines)
		before := time.Now()
		require.NoError(t, sse.WriteChunks(openaicompat.ChatCompletionChunk{ID: strconv.Itoa(i)}))
		after := time.Now()
		require.NotEqual(t, sets, w.sets, "write %d: no deadline set", i)
		require.NotEqual(t, writes, len(w.deadlines), "write %d: nothing written", i)
		for _, d := range w.deadlines[writes:] {
			assert.WithinRange(t, d, before.Add(timeout), after.Add(timeout), "write %d: a deadline not WriteTimeout after a moment of the call", i)
		}
	}
	assert.Equal(t, 4, w.flushes, "flushes: Start, and each write")

	// No deadline without WriteTimeout.
	w = &deadlineWriter{header: http.Header{}}
	require.NoError(t, openaicompat.NewSSEWriter(w).WriteDone())
	if assert.Len(t, w.deadlines, 1, "writes") {
		assert.True(t, w.deadlines[0].IsZero(), "deadline %v, want none", w.deadlines[0])
	}
	assert.Zero(t, w.sets, "deadlines set")
}

// smallBufferListener makes the kernel's send buffer of each accepted
// connection small, so that a client that stops reading blocks the server
// after kilobytes rather than after the megabytes loopback's autotuned
// buffers hold.
type smallBufferListener struct{ net.Listener }

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// TestSSEWriterSlowClient: over a real connection, a client that stops
// reading fails the handler's write, once the connection's buffers are full
// and the write's deadline has passed, with an error wrapping
// os.ErrDeadlineExceeded, and the handler stops writing. (How far the
// deadline lies is TestSSEWriterDeadline's to check; only a deadline makes
// a write fail with that error.)
func TestSSEWriterSlowClient(t *testing.T) {
	const timeout = 200 * time.Millisecond
	type result struct {
		err      error
		n        int
		finished bool
	}
	done := make(chan result, 1)
	content := strings.Repeat("x", 1000)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse := openaicompat.NewSSEWriter(w)
		sse.WriteTimeout = timeout
		chunk := openaicompat.ChatCompletionChunk{ID: "chatcmpl-1", Object: "chat.completion.chunk",
			Choices: []openaicompat.ChunkChoice{{Delta: openaicompat.ChatDelta{Content: content}}}}
		var res result
		for ; res.n < 100000; res.n++ { // 100 MB: more than any buffer
			if res.err = sse.WriteChunks(chunk); res.err != nil {
				break
			}
		}
		res.finished = res.err == nil
		done <- res
	}))
	ts.Listener = smallBufferListener{ts.Listener}
	ts.Start()
	defer ts.Close()

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	// Read the headers, then stop reading.
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"), "Content-Type")

	select {
	case res := <-done:
		require.False(t, res.finished, "after %d chunks: no error, want one wrapping os.ErrDeadlineExceeded", res.n)
		require.ErrorIs(t, res.err, os.ErrDeadlineExceeded, "after %d chunks", res.n)
		t.Logf("dropped after %d chunks (%d kB)", res.n, res.n*len(content)/1000)
	case <-time.After(time.Minute): // only ends a hung test
		require.FailNow(t, "the handler still writes after a minute")
	}
}

// discardWriter is a ResponseWriter that flushes and sets deadlines, and
// keeps nothing.
type discardWriter struct{ header http.Header }

func (w discardWriter) Header() http.Header                          { return w.header }
func (w discardWriter) WriteHeader(int)                              {}
func (w discardWriter) Write(p []byte) (int, error)                  { return len(p), nil }
func (w discardWriter) FlushError() error                            { return nil }
func (w discardWriter) SetWriteDeadline(time.Time) error             { return nil }
func (w discardWriter) SetReadDeadline(time.Time) error              { return nil }
func (w discardWriter) EnableFullDuplex() error                      { return nil }
func (w discardWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

// TestSSEWriterAllocs: framing, flushing and deadlines allocate nothing
// beyond what marshalling the value allocates.
func TestSSEWriterAllocs(t *testing.T) {
	if testing.CoverMode() != "" || sample.Race {
		t.Skip("allocation counts differ under -cover and -race")
	}
	enc := testenc.Encoding(t)
	chunks, events := sseStreams(t, enc)
	// A content delta, a text delta, passed on as slices as a server passes
	// on the converters' (one value would be copied to the heap).
	chunk, event := chunks[2:3], events[5:6]
	sse := openaicompat.NewSSEWriter(discardWriter{http.Header{}})
	sse.WriteTimeout = time.Minute
	require.NoError(t, sse.Start())
	for _, tc := range []struct {
		name  string
		write func() error
		v     any
	}{
		{"chunk", func() error { return sse.WriteChunks(chunk...) }, &chunk[0]},
		{"event", func() error { return sse.WriteEvents(event...) }, &event[0]},
	} {
		marshal := testing.AllocsPerRun(100, func() { json.Marshal(tc.v) })
		write := testing.AllocsPerRun(100, func() {
			require.NoError(t, tc.write())
		})
		// json.Marshal also copies its result; the writer encodes into
		// its own buffer.
		assert.LessOrEqual(t, write, marshal-1, "%s: allocations per write, json.Marshal %v", tc.name, marshal)
	}
}

// sseStreams returns the chunks and events of sseSampled.
func sseStreams(t testing.TB, enc *harmony.Encoding) ([]openaicompat.ChatCompletionChunk, []openaicompat.ResponseEvent) {
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	cc, _ := openaicompat.NewChatStreamConverter(enc, sseOptions())
	rc, _ := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
	var chunks []openaicompat.ChatCompletionChunk
	var events []openaicompat.ResponseEvent
	for _, tok := range toks {
		c, err := cc.Process(tok)
		require.NoError(t, err)
		e, err := rc.Process(tok)
		require.NoError(t, err)

		chunks, events = append(chunks, c...), append(events, e...)
	}
	return chunks, events
}

// BenchmarkSSEWriterChunks writes a stream's chunks one by one, as a server
// does (each Process call's slice passed on).
func BenchmarkSSEWriterChunks(b *testing.B) {
	enc := testenc.Encoding(b)
	chunks, _ := sseStreams(b, enc)
	rec := httptest.NewRecorder()
	one := openaicompat.NewSSEWriter(rec)
	one.WriteChunks(chunks...)
	b.SetBytes(int64(rec.Body.Len()))
	sse := openaicompat.NewSSEWriter(discardWriter{http.Header{}})
	sse.WriteTimeout = time.Minute
	b.ReportAllocs()
	for b.Loop() {
		for i := range chunks {
			if err := sse.WriteChunks(chunks[i : i+1]...); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func ExampleSSEWriter() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	sampled := enc.EncodeWithSpecialTokens(`<|channel|>final<|message|>Hi<|return|>`)
	handler := func(w http.ResponseWriter, r *http.Request) {
		c, err := openaicompat.NewChatStreamConverter(enc, &openaicompat.ResponseOptions{
			Model: "gpt-oss-120b", Created: 1751112000, IDGenerator: func() string { return "1" }})
		sse := openaicompat.NewSSEWriter(w)
		sse.WriteTimeout = 10 * time.Second // drop a client that stops reading
		if err != nil {
			sse.WriteChatError(err) // not started: a plain 500
			return
		}
		for _, t := range sampled {
			chunks, err := c.Process(t)
			if werr := sse.WriteChunks(chunks...); werr != nil {
				return // the client has gone
			}
			if err != nil {
				sse.WriteChatError(err) // data: {"error": {...}}
				return
			}
		}
		chunks, err := c.Finish(openaicompat.Sampling{})
		if werr := sse.WriteChunks(chunks...); werr != nil {
			return
		}
		if err != nil {
			sse.WriteChatError(err)
			return
		}
		sse.WriteDone()
	}

	rec := httptest.NewRecorder()
	handler(rec, httptest.NewRequest("POST", "/v1/chat/completions", nil))
	fmt.Println(rec.Header().Get("Content-Type"))
	fmt.Print(rec.Body)
	// Output:
	// text/event-stream
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1751112000,"model":"gpt-oss-120b","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}
	//
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1751112000,"model":"gpt-oss-120b","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}
	//
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1751112000,"model":"gpt-oss-120b","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
	//
	// data: [DONE]
}
