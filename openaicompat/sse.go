package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// SSEWriter writes a streamed completion to an HTTP response as server-sent
// events, framed as OpenAI frames them: a Chat Completions stream is
// "data: {chunk}" per chunk and then "data: [DONE]"; a Responses stream is
// "event: TYPE" and "data: {event}" per event, with no [DONE]. Each event
// ends with a blank line; its JSON is encoding/json's, on one line, without
// HTML escaping (so harmony text such as "<|call|>" stays readable).
//
// Start, or else the first write, sends the headers: status 200,
// Content-Type text/event-stream, Cache-Control no-cache and
// X-Accel-Buffering no (which keeps nginx from buffering the stream), with
// any header the handler set before. Every call flushes what it wrote
// through [http.ResponseController], so each event reaches the client when
// it is written; a ResponseWriter that cannot flush (http.ErrNotSupported)
// sends the events when it can.
//
// A stream ends with WriteDone (Chat Completions), with the last events of
// the ResponsesStreamConverter (Responses), or, when it cannot finish, with
// WriteChatError or WriteResponsesError. Writes after WriteDone or an error
// frame return an error wrapping [ErrStreamFinished]. After a failed write
// (the client has gone, or did not take a write within WriteTimeout) every
// later call returns that error, and the handler should return: net/http
// closes a connection whose write failed.
//
// Encoding reuses the writer's buffer: passing on a converter's slice
// (WriteChunks(chunks...)) allocates only what marshalling its values to
// JSON allocates. An SSEWriter is for one response and one goroutine.
type SSEWriter struct {
	// WriteTimeout, when positive, is the deadline of each write: before
	// writing, the SSEWriter sets the connection's write deadline to
	// WriteTimeout from now (http.ResponseController.SetWriteDeadline), so a
	// client that stops reading fails the write, with an error wrapping
	// os.ErrDeadlineExceeded, once the connection's buffers are full and
	// WriteTimeout has passed, instead of holding the handler. Waiting
	// between writes (for the next token) does not count; a stream may last
	// for any time. The deadline of the last write stays set after it and
	// bounds net/http's end of the response; net/http clears it before the
	// connection's next request. Zero, the default, sets no deadline
	// (http.Server.WriteTimeout, if any, still counts from the request's
	// start and cuts long streams), as does a ResponseWriter that cannot set
	// one (http.ErrNotSupported).
	WriteTimeout time.Duration

	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer
	enc *json.Encoder // writes to buf

	started, ended bool
	noDeadline     bool // the ResponseWriter cannot set deadlines
	noFlush        bool // nor flush
	err            error
}

// NewSSEWriter returns an SSEWriter that writes to w. It writes nothing
// yet.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	s := &SSEWriter{w: w, rc: http.NewResponseController(w)}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

// errEnded is the error of a write after the end of the stream.
var errEnded = fmt.Errorf("openaicompat: event stream: %w", ErrStreamFinished)

// Start sends the headers of the event stream and flushes them, so that the
// client sees the response begin before the first token is sampled. Calling
// it again does nothing. The writes call it when it has not been called.
func (s *SSEWriter) Start() error {
	if s.err != nil || s.started {
		return s.err
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if !s.arm() {
		return s.err
	}
	s.w.WriteHeader(http.StatusOK)
	return s.flush()
}

// WriteChunks writes each chunk as an event "data: {chunk}", and flushes
// once after the last. With no chunks it writes nothing (and does not start
// the stream). The chunks are only read.
func (s *SSEWriter) WriteChunks(chunks ...ChatCompletionChunk) error {
	if err := s.check(len(chunks) > 0); err != nil || len(chunks) == 0 {
		return err
	}
	s.buf.Reset()
	for i := range chunks {
		if err := s.appendData(&chunks[i]); err != nil {
			return err
		}
	}
	return s.send()
}

// WriteEvents writes each event as "event: TYPE" and "data: {event}", and
// flushes once after the last. With no events it writes nothing (and does
// not start the stream). An event whose Type is empty or has a line break
// is an error, and then nothing is written. The events are only read.
func (s *SSEWriter) WriteEvents(events ...ResponseEvent) error {
	if err := s.check(len(events) > 0); err != nil || len(events) == 0 {
		return err
	}
	s.buf.Reset()
	for i := range events {
		e := &events[i]
		if e.Type == "" || strings.ContainsAny(e.Type, "\r\n") {
			s.err = fmt.Errorf("openaicompat: event stream: event %d has the type %q, which cannot be an event name", i, e.Type)
			return s.err
		}
		s.buf.WriteString("event: ")
		s.buf.WriteString(e.Type)
		s.buf.WriteByte('\n')
		if err := s.appendData(e); err != nil {
			return err
		}
	}
	return s.send()
}

// WriteDone writes "data: [DONE]", the end of a Chat Completions stream.
func (s *SSEWriter) WriteDone() error {
	if err := s.check(true); err != nil {
		return err
	}
	s.buf.Reset()
	s.buf.WriteString("data: [DONE]\n\n")
	s.ended = true
	return s.send()
}

// WriteChatError ends a Chat Completions stream that cannot finish, such as
// on an error of ChatStreamConverter.Process or of the sampler: it writes
// the error as an event "data: {"error": {...}}", the body [HTTPError]
// gives for err, and no [DONE]. A stream that has started cannot change its
// status, so clients read this event as the error. If the stream has not
// started, it answers with HTTPError's status and body as a plain JSON
// response instead, as for a request that was never streamed. A nil err is
// answered as a "server_error".
func (s *SSEWriter) WriteChatError(err error) error {
	if cerr := s.check(false); cerr != nil {
		return cerr
	}
	status, body := HTTPError(orUnknown(err))
	if !s.started {
		return s.respond(status, body)
	}
	s.buf.Reset()
	if err := s.appendData(&body); err != nil {
		return err
	}
	s.ended = true
	return s.send()
}

// WriteResponsesError ends a Responses stream that cannot finish, such as
// on an error of c.Process or of the sampler: it writes the events of
// c.Fail(err), an "error" event and "response.failed", where c is the
// stream's converter. If the stream has not started, it answers with
// [HTTPError]'s status and body as a plain JSON response instead (and still
// ends c). A nil err is answered as a "server_error".
func (s *SSEWriter) WriteResponsesError(c *ResponsesStreamConverter, err error) error {
	if cerr := s.check(false); cerr != nil {
		return cerr
	}
	err = orUnknown(err)
	events := c.Fail(err)
	if !s.started {
		status, body := HTTPError(err)
		return s.respond(status, body)
	}
	if werr := s.WriteEvents(events...); werr != nil {
		return werr
	}
	s.ended = true
	return nil
}

// errUnknown stands for a nil error given to end a stream.
var errUnknown = errors.New("openaicompat: the stream failed")

// orUnknown returns err, or errUnknown for nil.
func orUnknown(err error) error {
	if err == nil {
		return errUnknown
	}
	return err
}

// check returns the error a write must return before it begins, and starts
// the stream when start is set.
func (s *SSEWriter) check(start bool) error {
	switch {
	case s.err != nil:
		return s.err
	case s.ended:
		return errEnded
	case start:
		return s.Start()
	}
	return nil
}

// appendData appends "data: JSON\n\n" to the buffer. On an error of the
// encoder the buffer is as before, and the error is kept.
func (s *SSEWriter) appendData(v any) error {
	mark := s.buf.Len()
	s.buf.WriteString("data: ")
	// Encode writes nothing on an error, and ends the JSON with "\n".
	if err := s.enc.Encode(v); err != nil {
		s.buf.Truncate(mark)
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
		return s.err
	}
	s.buf.WriteByte('\n')
	return nil
}

// respond answers with a plain JSON body, for an error before the stream
// started.
func (s *SSEWriter) respond(status int, body ErrorResponse) error {
	s.started, s.ended = true, true
	s.buf.Reset()
	if err := s.enc.Encode(&body); err != nil {
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
		return s.err
	}
	s.w.Header().Set("Content-Type", "application/json")
	if !s.arm() {
		return s.err
	}
	s.w.WriteHeader(status)
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
		return s.err
	}
	return nil
}

// send writes the buffer and flushes it.
func (s *SSEWriter) send() error {
	if !s.arm() {
		return s.err
	}
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
		return s.err
	}
	return s.flush()
}

// arm sets the write deadline, if any; false means it failed (s.err).
func (s *SSEWriter) arm() bool {
	if s.WriteTimeout <= 0 || s.noDeadline {
		return true
	}
	err := s.rc.SetWriteDeadline(time.Now().Add(s.WriteTimeout))
	switch {
	case err == nil:
	case errors.Is(err, http.ErrNotSupported):
		s.noDeadline = true // and no error value allocated on every write
	default:
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
		return false
	}
	return true
}

// flush flushes the response.
func (s *SSEWriter) flush() error {
	if s.noFlush {
		return nil
	}
	err := s.rc.Flush()
	switch {
	case err == nil:
	case errors.Is(err, http.ErrNotSupported):
		s.noFlush = true
	default:
		s.err = fmt.Errorf("openaicompat: event stream: %w", err)
	}
	return s.err
}
