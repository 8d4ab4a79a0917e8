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
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sseSampled has markup-like text, to show it is not HTML-escaped.
const sseSampled = `<|channel|>analysis<|message|>Compare <a> & <b>.<|end|>` +
	`<|start|>assistant<|channel|>final<|message|>a < b & b > c<|return|>`

func checkStreamHeaders(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	want := map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
	for k, v := range want {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if rec.Code != http.StatusOK {
		t.Errorf("status %d, want 200", rec.Code)
	}
}

func TestSSEWriterChat(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	if err := sse.Start(); err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed || rec.Body.Len() != 0 {
		t.Fatalf("after Start: flushed %v, body %q", rec.Flushed, rec.Body)
	}
	checkStreamHeaders(t, rec)

	c, err := openaicompat.NewChatStreamConverter(enc, sseOptions())
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, tok := range toks {
		chunks, err := c.Process(tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chunks {
			want.WriteString("data: " + wireJSON(t, ch) + "\n\n")
		}
		if err := sse.WriteChunks(chunks...); err != nil {
			t.Fatal(err)
		}
		if rec.Body.String() != want.String() {
			t.Fatalf("body not flushed up to the chunks written:\n%s\nwant\n%s", rec.Body, &want)
		}
	}
	chunks, err := c.Finish(openaicompat.Sampling{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		want.WriteString("data: " + wireJSON(t, ch) + "\n\n")
	}
	if err := sse.WriteChunks(chunks...); err != nil {
		t.Fatal(err)
	}
	if err := sse.WriteDone(); err != nil {
		t.Fatal(err)
	}
	want.WriteString("data: [DONE]\n\n")
	if got := rec.Body.String(); got != want.String() {
		t.Errorf("body:\n%s\nwant:\n%s", got, &want)
	}
	if !strings.Contains(rec.Body.String(), `"content":" &"`) || strings.Contains(rec.Body.String(), `\u003c`) {
		t.Errorf("content HTML-escaped or missing:\n%s", rec.Body)
	}

	// The stream has ended.
	n := rec.Body.Len()
	for name, write := range map[string]func() error{
		"WriteChunks": func() error { return sse.WriteChunks(chunks...) },
		"WriteDone":   sse.WriteDone,
		"WriteChatError": func() error {
			return sse.WriteChatError(errors.New("late"))
		},
	} {
		if err := write(); !errors.Is(err, openaicompat.ErrStreamFinished) {
			t.Errorf("%s after WriteDone: %v, want ErrStreamFinished", name, err)
		}
	}
	if rec.Body.Len() != n {
		t.Errorf("written after the end: %q", rec.Body.String()[n:])
	}
}

func TestSSEWriterResponses(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sseSampled)
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	c, err := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	write := func(events []openaicompat.ResponseEvent) {
		t.Helper()
		for _, e := range events {
			want.WriteString("event: " + e.Type + "\ndata: " + wireJSON(t, e) + "\n\n")
		}
		if err := sse.WriteEvents(events...); err != nil {
			t.Fatal(err)
		}
	}
	for _, tok := range toks {
		events, err := c.Process(tok)
		if err != nil {
			t.Fatal(err)
		}
		write(events)
	}
	events, err := c.Finish(openaicompat.Sampling{})
	if err != nil {
		t.Fatal(err)
	}
	write(events)
	checkStreamHeaders(t, rec) // started by the first write
	if got := rec.Body.String(); got != want.String() {
		t.Errorf("body:\n%s\nwant:\n%s", got, &want)
	}
	if !strings.HasSuffix(rec.Body.String(), "\n\n") || strings.Contains(rec.Body.String(), "[DONE]") {
		t.Errorf("end of body: %q", rec.Body.String()[max(0, rec.Body.Len()-80):])
	}
	if !strings.Contains(rec.Body.String(), `"text":"a < b & b > c"`) {
		t.Errorf("text HTML-escaped or missing:\n%s", rec.Body)
	}
}

// TestSSEWriterNothing: writing no chunks or events neither writes nor
// starts the stream.
func TestSSEWriterNothing(t *testing.T) {
	rec := httptest.NewRecorder()
	sse := openaicompat.NewSSEWriter(rec)
	if err := sse.WriteChunks(); err != nil {
		t.Fatal(err)
	}
	if err := sse.WriteEvents(); err != nil {
		t.Fatal(err)
	}
	if rec.Flushed || len(rec.Header()) != 0 || rec.Body.Len() != 0 {
		t.Errorf("written: headers %v, body %q", rec.Header(), rec.Body)
	}
	// So an error can still be answered with its status.
	if err := sse.WriteChatError(&openaicompat.RequestError{Param: "messages", Code: "invalid_request", Err: openaicompat.ErrInvalidRequest}); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 400 {
		t.Errorf("status %d, want 400", rec.Code)
	}
}

func TestSSEWriterChatError(t *testing.T) {
	enc := testenc.Encoding(t)
	fail := &openaicompat.OutputError{MessageIndex: 1, Err: openaicompat.ErrUnexpectedMessage}
	wantStatus, wantBody := openaicompat.HTTPError(fail)

	t.Run("mid-stream", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		c, err := openaicompat.NewChatStreamConverter(enc, sseOptions())
		if err != nil {
			t.Fatal(err)
		}
		chunks, _ := c.Process(enc.EncodeWithSpecialTokens("<|channel|>")[0])
		if err := sse.WriteChunks(chunks...); err != nil {
			t.Fatal(err)
		}
		before := rec.Body.String()
		if err := sse.WriteChatError(fail); err != nil {
			t.Fatal(err)
		}
		checkStreamHeaders(t, rec)
		frame := strings.TrimPrefix(rec.Body.String(), before)
		if want := "data: " + wireJSON(t, wantBody) + "\n\n"; frame != want {
			t.Errorf("error frame %q, want %q", frame, want)
		}
		if !strings.HasPrefix(frame, `data: {"error":{"message":"model output message 1: message not written by the assistant","type":"server_error","param":null,"code":null}}`) {
			t.Errorf("error frame %q", frame)
		}
		if err := sse.WriteDone(); !errors.Is(err, openaicompat.ErrStreamFinished) {
			t.Errorf("WriteDone after the error: %v", err)
		}
	})
	t.Run("not started", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		sse.WriteTimeout = time.Second // the recorder cannot set one: no error
		if err := sse.WriteChatError(fail); err != nil {
			t.Fatal(err)
		}
		if rec.Code != wantStatus || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("status %d, Content-Type %q; want %d, application/json", rec.Code, rec.Header().Get("Content-Type"), wantStatus)
		}
		if got, want := rec.Body.String(), wireJSON(t, wantBody)+"\n"; got != want {
			t.Errorf("body %q, want %q", got, want)
		}
		if err := sse.WriteChunks(openaicompat.ChatCompletionChunk{}); !errors.Is(err, openaicompat.ErrStreamFinished) {
			t.Errorf("WriteChunks after the error: %v", err)
		}
	})
	t.Run("nil", func(t *testing.T) {
		rec := httptest.NewRecorder()
		if err := openaicompat.NewSSEWriter(rec).WriteChatError(nil); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"server_error"`) {
			t.Errorf("status %d, body %s", rec.Code, rec.Body)
		}
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
			if err != nil {
				t.Fatal(err)
			}
			twin.Process(tok)
			if err := sse.WriteEvents(events...); err != nil {
				t.Fatal(err)
			}
		}
		before := rec.Body.String()
		if err := sse.WriteResponsesError(c, fail); err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		failEvents := twin.Fail(fail)
		for _, e := range failEvents {
			want.WriteString("event: " + e.Type + "\ndata: " + wireJSON(t, e) + "\n\n")
		}
		if got := strings.TrimPrefix(rec.Body.String(), before); got != want.String() {
			t.Errorf("last events:\n%s\nwant:\n%s", got, &want)
		}
		if len(failEvents) != 2 || failEvents[0].Type != "error" || failEvents[1].Type != "response.failed" {
			t.Errorf("Fail events %+v", failEvents)
		}
		if events := c.Fail(fail); events != nil {
			t.Errorf("the converter was not ended: Fail again gave %d events", len(events))
		}
		if err := sse.WriteEvents(failEvents...); !errors.Is(err, openaicompat.ErrStreamFinished) {
			t.Errorf("WriteEvents after the error: %v", err)
		}
	})
	t.Run("not started", func(t *testing.T) {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		c, _ := openaicompat.NewResponsesStreamConverter(enc, sseOptions())
		if err := sse.WriteResponsesError(c, fail); err != nil {
			t.Fatal(err)
		}
		_, body := openaicompat.HTTPError(fail)
		if rec.Code != 500 || rec.Body.String() != wireJSON(t, body)+"\n" {
			t.Errorf("status %d, body %s", rec.Code, rec.Body)
		}
		if events := c.Fail(fail); events != nil {
			t.Errorf("the converter was not ended")
		}
	})
}

func TestSSEWriterBadEventType(t *testing.T) {
	for _, typ := range []string{"", "response.created\ndata: {}", "a\rb"} {
		rec := httptest.NewRecorder()
		sse := openaicompat.NewSSEWriter(rec)
		err := sse.WriteEvents(openaicompat.ResponseEvent{Type: "response.created"}, openaicompat.ResponseEvent{Type: typ})
		if err == nil || !strings.Contains(err.Error(), "event 1") {
			t.Errorf("type %q: %v, want an error for event 1", typ, err)
		}
		if rec.Body.Len() != 0 {
			t.Errorf("type %q: written %q", typ, rec.Body)
		}
		if err2 := sse.WriteDone(); err2 != err {
			t.Errorf("then WriteDone: %v, want the same error", err2)
		}
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
	if err := sse.WriteChunks(chunk); err != nil {
		t.Fatal(err)
	}
	err := sse.WriteChunks(chunk)
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("second write: %v", err)
	}
	for name, f := range map[string]func() error{
		"Start":               sse.Start,
		"WriteChunks":         func() error { return sse.WriteChunks(chunk) },
		"WriteEvents":         func() error { return sse.WriteEvents(openaicompat.ResponseEvent{Type: "error"}) },
		"WriteDone":           sse.WriteDone,
		"WriteChatError":      func() error { return sse.WriteChatError(errors.New("x")) },
		"WriteResponsesError": func() error { return sse.WriteResponsesError(nil, errors.New("x")) },
	} {
		if got := f(); got != err {
			t.Errorf("%s after the failure: %v, want %v", name, got, err)
		}
	}
	if w.writes != 2 {
		t.Errorf("%d writes, want 2 (none after the failure)", w.writes)
	}
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
		if err := sse.WriteChunks(openaicompat.ChatCompletionChunk{ID: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		if w.sets == sets || len(w.deadlines) == writes {
			t.Fatalf("write %d: %d deadlines set, %d writes", i, w.sets-sets, len(w.deadlines)-writes)
		}
		for _, d := range w.deadlines[writes:] {
			if d.Before(before.Add(timeout)) || d.After(after.Add(timeout)) {
				t.Errorf("write %d: a deadline not WriteTimeout after a moment of the call", i)
			}
		}
	}
	if w.flushes != 4 { // Start, and each write
		t.Errorf("%d flushes, want 4", w.flushes)
	}

	// No deadline without WriteTimeout.
	w = &deadlineWriter{header: http.Header{}}
	if err := openaicompat.NewSSEWriter(w).WriteDone(); err != nil {
		t.Fatal(err)
	}
	if len(w.deadlines) != 1 || !w.deadlines[0].IsZero() || w.sets != 0 {
		t.Errorf("deadlines %v (%d set), want none set", w.deadlines, w.sets)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// Read the headers, then stop reading.
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}

	select {
	case res := <-done:
		if res.finished || !errors.Is(res.err, os.ErrDeadlineExceeded) {
			t.Fatalf("after %d chunks: %v, want an error wrapping os.ErrDeadlineExceeded", res.n, res.err)
		}
		t.Logf("dropped after %d chunks (%d kB)", res.n, res.n*len(content)/1000)
	case <-time.After(time.Minute): // only ends a hung test
		t.Fatal("the handler still writes after a minute")
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
	if err := sse.Start(); err != nil {
		t.Fatal(err)
	}
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
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
		})
		// json.Marshal also copies its result; the writer encodes into
		// its own buffer.
		if write > marshal-1 {
			t.Errorf("%s: %v allocations per write, json.Marshal %v", tc.name, write, marshal)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		e, err := rc.Process(tok)
		if err != nil {
			t.Fatal(err)
		}
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
