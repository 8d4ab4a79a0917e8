package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/utf8x"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/go-harmony/harmony/openaicompat"
)

// The endpoints.
const (
	chatPath      = "/v1/chat/completions"
	responsesPath = "/v1/responses"
)

// options are the server's settings besides its model and prompt log.
type options struct {
	// Model is the model name reported when a request names none; the
	// name a request gives is echoed. "" means "gpt-oss-120b".
	Model string
	// Now is the clock: the responses' creation time and the "Current date"
	// of the system message (its UTC date). nil means time.Now.
	Now func() time.Time
	// NewIDs returns, for each response, the generator of the suffixes of
	// its ids (openaicompat.ResponseOptions.IDGenerator). nil means random
	// ids. Tests pass a fresh counter per response.
	NewIDs func() func() string
	// MaxBodyBytes limits a request's body; 0 means 8 MiB.
	MaxBodyBytes int64
	// WriteTimeout is the deadline of each write to the client: a whole
	// non-streamed response, and each event of a stream, must be taken
	// within it, or the connection is dropped. 0 means none.
	WriteTimeout time.Duration
	// TokenDelay is a pause after each token of a stream, to make it look
	// like sampling; 0 means none.
	TokenDelay time.Duration
	// Strict fails a request whose completion is malformed (a 500, or an
	// error event in a stream) instead of recovering it, to test a model.
	Strict bool
	// ReasoningField is the Chat Completions field of the reasoning
	// (openaicompat.ResponseOptions.ReasoningField).
	ReasoningField openaicompat.ReasoningField
	// Sealer seals the reasoning of Responses reasoning items for requests
	// that include "reasoning.encrypted_content" and opens it when they
	// come back; nil means a sealer with a random key of this process.
	Sealer *openaicompat.ReasoningSealer
	// StoreBytes bounds everything the in-memory Responses store keeps
	// (the output items that item references resolve through, and the
	// conversations of previous_response_id), in all; 0 means 64 MiB,
	// negative no store.
	StoreBytes int64
	// ContextWindow is the model's context window in tokens
	// (openaicompat.RequestOptions.ContextWindow): a prompt that does not
	// fit with room for the completion is a 400 context_length_exceeded.
	// 0 means no limit.
	ContextWindow int
	// Log gets one line per request (see accessLog); nil means none.
	Log *slog.Logger
	// Keys are the API keys a request must authenticate with, each of a
	// tenant, whose stored responses are its own (see auth.go); nil means
	// no authentication, and one tenant for every request.
	Keys *apiKeys
	// MaxConcurrent bounds the requests in the model at once (compiling
	// their constraint and sampling): past it a request gets 429
	// rate_limit_exceeded with a Retry-After header. 0 means no bound.
	MaxConcurrent int
}

// server answers the OpenAI endpoints with completions from a model. It is
// safe for concurrent use.
type server struct {
	enc   *harmony.Encoding
	model model
	opts  options

	// mu orders the requests that reach the model: under it, and only for
	// that, a request takes its number n (the next of seq) and writes its
	// prompt as line n of the prompt log, so that line n is the prompt
	// that got completion n (line n of a replay file, cycling; the draw
	// (SEED, n) of -sample). The model's work, compiling the request's
	// constraint and sampling, runs outside it: a slow request delays no
	// other.
	mu      sync.Mutex
	seq     uint64
	prompts io.Writer

	// slots holds a value per request in the model; nil: no bound.
	slots chan struct{}

	items *itemStore // nil: no store

	schemas *jsonschema.Validator // checks the requests' tool and format schemas
}

// newServer returns a server that renders requests with enc, takes the
// completions from m, and, when prompts is non-nil, writes one JSON line
// {"text": ..., "tokens": [...]} there per rendered prompt.
func newServer(enc *harmony.Encoding, m model, prompts io.Writer, opts options) *server {
	if opts.Model == "" {
		opts.Model = "gpt-oss-120b"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 8 << 20
	}
	if opts.StoreBytes == 0 {
		opts.StoreBytes = 64 << 20
	}
	if opts.Sealer == nil {
		// A key of this process: sealed reasoning opens until it restarts.
		key := make([]byte, 32)
		rand.Read(key)
		opts.Sealer, _ = openaicompat.NewReasoningSealer(key)
	}
	s := &server{enc: enc, model: m, opts: opts, prompts: prompts, schemas: jsonschema.New(nil)}
	if opts.MaxConcurrent > 0 {
		s.slots = make(chan struct{}, opts.MaxConcurrent)
	}
	if opts.StoreBytes > 0 {
		s.items = newItemStore(opts.StoreBytes)
	}
	return s
}

// ServeHTTP routes POST /v1/chat/completions and POST /v1/responses.
// Anything else gets 404 (unknown path) or 405 (another method). Each
// request is logged when it ends (accessLog).
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	aw := &accessWriter{ResponseWriter: w, start: time.Now(), promptTokens: -1, completionTokens: -1}
	defer s.accessLog(aw, r)
	s.route(aw, r)
}

// route serves the request, once it is authenticated.
func (s *server) route(w *accessWriter, r *http.Request) {
	if r = s.authenticate(w, r); r == nil {
		return
	}
	var handle func(*accessWriter, *http.Request)
	switch r.URL.Path {
	case chatPath:
		handle = s.chat
	case responsesPath:
		handle = s.responses
	default:
		s.writeJSON(w, http.StatusNotFound, errorBody(
			fmt.Sprintf("Invalid URL (%s %s): this server has only POST %s and POST %s", clip(r.Method), clip(r.URL.Path), chatPath, responsesPath),
			"invalid_request_error", "", "unknown_url"))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.writeJSON(w, http.StatusMethodNotAllowed, errorBody(
			fmt.Sprintf("Method %s not allowed on %s: use POST", clip(r.Method), r.URL.Path),
			"invalid_request_error", "", "method_not_allowed"))
		return
	}
	// The "100 Continue" that reading the body may send is a write too.
	s.armWrite(w)
	handle(w, r)
}

// chat answers POST /v1/chat/completions.
func (s *server) chat(w *accessWriter, r *http.Request) {
	var req openaicompat.ChatCompletionRequest
	if !s.decode(w, r, func(data []byte) error { return openaicompat.DecodeRequest(data, &req) }) {
		return
	}
	ids, samp, ok := s.generate(w, r, &req, s.requestOptions(), func() []schemaCheck { return chatSchemas(&req) }, req.MaxOutputTokens())
	if !ok {
		return
	}
	ro := s.responseOptions(req.ResponseOptions())
	if !req.Stream {
		resp, err := openaicompat.ChatCompletionFromTokens(s.enc, ids, samp, &ro)
		if err != nil {
			s.writeError(w, err)
			return
		}
		s.writeJSON(w, http.StatusOK, resp)
		return
	}
	c, err := openaicompat.NewChatStreamConverter(s.enc, &ro)
	if err != nil {
		s.writeError(w, err)
		return
	}
	sse := s.sseWriter(w)
	finish := func() ([]openaicompat.ChatCompletionChunk, error) { return c.Finish(samp) }
	if stream(r.Context(), s, w, ids, c.Process, finish, sse.WriteChunks, func(err error) { sse.WriteChatError(err) }) {
		sse.WriteDone()
	}
}

// responses answers POST /v1/responses.
func (s *server) responses(w *accessWriter, r *http.Request) {
	var req openaicompat.ResponsesRequest
	if !s.decode(w, r, func(data []byte) error { return openaicompat.DecodeRequest(data, &req) }) {
		return
	}
	owner := tenantOf(r.Context())
	opts := s.requestOptions()
	opts.Owner = owner
	limit := 0
	if req.MaxOutputTokens != nil {
		limit = *req.MaxOutputTokens
	}
	ids, samp, ok := s.generate(w, r, &req, opts, func() []schemaCheck { return responsesSchemas(&req) }, limit)
	if !ok {
		return
	}
	ro := s.responseOptions(req.ResponseOptions())
	ro.Owner = owner
	store := s.items != nil && (req.Store == nil || *req.Store)
	if !req.Stream {
		resp, err := openaicompat.ResponseFromTokens(s.enc, ids, samp, &ro)
		if err != nil {
			s.writeError(w, err)
			return
		}
		if store {
			s.items.putResponse(owner, &req, resp)
		}
		s.writeJSON(w, http.StatusOK, resp)
		return
	}
	c, err := openaicompat.NewResponsesStreamConverter(s.enc, &ro)
	if err != nil {
		s.writeError(w, err)
		return
	}
	sse := s.sseWriter(w)
	finish := func() ([]openaicompat.ResponseEvent, error) {
		events, err := c.Finish(samp)
		if store && err == nil && len(events) > 0 && events[len(events)-1].Response != nil {
			s.items.putResponse(owner, &req, events[len(events)-1].Response)
		}
		return events, err
	}
	stream(r.Context(), s, w, ids, c.Process, finish, sse.WriteEvents, func(err error) { sse.WriteResponsesError(c, err) })
}

// apiRequest is what chat and responses serve: an
// openaicompat.ChatCompletionRequest or an openaicompat.ResponsesRequest.
type apiRequest interface {
	Conversation(*openaicompat.RequestOptions) (harmony.Conversation, error)
	RenderPrompt(*harmony.Encoding, harmony.Conversation, *openaicompat.RequestOptions) ([]harmony.Token, error)
	MatcherContext(context.Context, *harmony.Encoding, *constrain.Options) (*constrain.Envelope, error)
}

// generate turns req into its conversation, checks the schemas that
// schemas returns (once the conversation is made), renders the prompt and
// returns the model's completion of at most limit tokens (complete). On
// failure it answers the request with the error and returns false.
func (s *server) generate(w *accessWriter, r *http.Request, req apiRequest, opts *openaicompat.RequestOptions, schemas func() []schemaCheck, limit int) ([]harmony.Token, openaicompat.Sampling, bool) {
	conv, err := req.Conversation(opts)
	if err == nil {
		err = checkSchemas(s.schemas, schemas())
	}
	var prompt []harmony.Token
	if err == nil {
		prompt, err = req.RenderPrompt(s.enc, conv, opts)
	}
	var ids []harmony.Token
	var samp openaicompat.Sampling
	if err == nil {
		ids, samp, err = s.complete(w, conv, prompt, limit, func() (*constrain.Envelope, error) { return req.MatcherContext(r.Context(), s.enc, nil) })
	}
	if err != nil {
		s.writeError(w, err)
		return nil, openaicompat.Sampling{}, false
	}
	return ids, samp, true
}

// stream writes the stream of the completion ids to the client of w: the
// events (chunks) process makes of each token, with TokenDelay between
// tokens, then those of finish, each batch with write. An error of process
// or finish ends the stream, after the events that came with it, with the
// error event fail writes. It returns true when the stream was written to
// its end without error, false when it ended with an error or the client
// went (or stopped reading).
func stream[E any](ctx context.Context, s *server, w *accessWriter, ids []harmony.Token, process func(harmony.Token) ([]E, error), finish func() ([]E, error), write func(...E) error, fail func(error)) bool {
	for _, t := range ids {
		events, err := process(t)
		if write(events...) != nil {
			return false // the client has gone, or stopped reading
		}
		if err != nil {
			noteError(w, err)
			fail(err)
			return false
		}
		if !s.pause(ctx) {
			return false
		}
	}
	events, err := finish()
	if write(events...) != nil {
		return false
	}
	if err != nil {
		noteError(w, err)
		fail(err)
		return false
	}
	return true
}

// sseWriter returns the event stream of a response, with the server's
// deadline per write.
func (s *server) sseWriter(w http.ResponseWriter) *openaicompat.SSEWriter {
	sse := openaicompat.NewSSEWriter(w)
	sse.WriteTimeout = s.opts.WriteTimeout
	return sse
}

// requestOptions returns the options of every conversation: harmony's
// defaults, with today's date (in UTC) as the conversation's start date, as
// OpenAI's gpt-oss reference servers do, and the model's context window.
func (s *server) requestOptions() *openaicompat.RequestOptions {
	o := &openaicompat.RequestOptions{ConversationStartDate: s.opts.Now().UTC().Format("2006-01-02"), Sealer: s.opts.Sealer,
		ContextWindow: s.opts.ContextWindow}
	if s.items != nil {
		o.Items, o.Responses = s.items, s.items
	}
	return o
}

// responseOptions completes the options a request asks for: the model's
// output is recovered as a server must (the default) unless the server is
// strict, and only the request's functions can be called (ro.Functions; this
// server enables no built-in tool).
func (s *server) responseOptions(ro openaicompat.ResponseOptions) openaicompat.ResponseOptions {
	ro.Strict = s.opts.Strict
	ro.ReasoningField = s.opts.ReasoningField
	ro.Sealer = s.opts.Sealer
	if ro.Model == "" {
		ro.Model = s.opts.Model
	}
	ro.Created = s.opts.Now().Unix()
	if s.opts.NewIDs != nil {
		ro.IDGenerator = s.opts.NewIDs()
	}
	return ro
}

// complete logs the prompt, the conversation rendered, and returns the
// model's completion (under the constraint mk builds, for -sample): cut
// after its first <|return|> or <|call|> (where a sampler stops), then to
// limit tokens when limit > 0, with what the response needs to know about
// it. It notes the token counts for the access log of w. Only the prompt
// log's line and the request's number are taken under s.mu; past
// MaxConcurrent requests in the model it returns errBusy.
func (s *server) complete(w *accessWriter, conv harmony.Conversation, prompt []harmony.Token, limit int, mk constraint) ([]harmony.Token, openaicompat.Sampling, error) {
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		default:
			return nil, openaicompat.Sampling{}, errBusy{s.opts.MaxConcurrent}
		}
	}
	line, err := s.promptLine(prompt)
	var n uint64
	if err == nil {
		n, err = s.take(line)
	}
	var ids []harmony.Token
	if err == nil {
		ids, err = s.model.Complete(n, conv, prompt, mk)
	}
	if err != nil {
		return nil, openaicompat.Sampling{}, err
	}
	stops := s.enc.StopTokensForAssistantActions()
	if i := slices.IndexFunc(ids, func(t harmony.Token) bool { return slices.Contains(stops, t) }); i >= 0 {
		ids = ids[:i+1]
	}
	samp := openaicompat.Sampling{PromptTokens: len(prompt)}
	if limit > 0 && len(ids) > limit {
		ids, samp.Truncated = ids[:limit], true
	}
	w.promptTokens, w.completionTokens = len(prompt), len(ids)
	return ids, samp, nil
}

// take gives the request its number among those that reach the model and
// writes its line (nil: no prompt log) to the prompt log, as line n, both
// under s.mu. A request whose line cannot be written takes no number.
func (s *server) take(line []byte) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if line != nil {
		if _, err := s.prompts.Write(line); err != nil {
			return 0, fmt.Errorf("prompt log: %w", err)
		}
	}
	n := s.seq
	s.seq++
	return n, nil
}

// promptLine returns the prompt's line of the prompt log, one JSON object
// and a newline, or nil when there is no prompt log.
func (s *server) promptLine(prompt []harmony.Token) ([]byte, error) {
	if s.prompts == nil {
		return nil, nil
	}
	// Decode is lossy where the bytes are not UTF-8; it fails only on a
	// token the encoding does not have, which a rendered prompt has not.
	text, _ := s.enc.Decode(prompt)
	line, err := marshal(struct {
		Text   string          `json:"text"`
		Tokens []harmony.Token `json:"tokens"`
	}{text, prompt})
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// errBusy refuses a request when max requests are in the model already.
type errBusy struct{ max int }

func (e errBusy) Error() string {
	return fmt.Sprintf("This server is busy: %d requests are in the model, as many as it runs at once. Please try again in %ds.", e.max, busyRetrySeconds)
}

// busyRetrySeconds is the Retry-After of a 429: OpenAI's SDKs wait that
// long before their retry.
const busyRetrySeconds = 1

// pause waits TokenDelay between the tokens of a stream; false means the
// client has gone.
func (s *server) pause(ctx context.Context) bool {
	if s.opts.TokenDelay <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(s.opts.TokenDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// decode reads the request's JSON body with decodeBody (an
// openaicompat.DecodeRequest). On failure it answers the request (415 for a
// content type other than JSON; for the rest, what openaicompat.HTTPError
// says: 413 for a body over the limit, 400 for one that is not a request)
// and returns false.
func (s *server) decode(w *accessWriter, r *http.Request, decodeBody func([]byte) error) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
			s.writeJSON(w, http.StatusUnsupportedMediaType, errorBody(
				fmt.Sprintf("Unsupported Content-Type %q: send the body as application/json", clip(ct)),
				"invalid_request_error", "", "unsupported_content_type"))
			return false
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err == nil {
		err = decodeBody(body)
	}
	if err != nil {
		s.writeError(w, err)
		return false
	}
	return true
}

// errorBody returns an OpenAI error for the server's own refusals (path,
// method, content type), which are no errors of openaicompat; an empty
// param or code is null.
func errorBody(message, typ, param, code string) openaicompat.ErrorResponse {
	obj := openaicompat.ErrorObject{Message: message, Type: typ}
	if param != "" {
		obj.Param = &param
	}
	if code != "" {
		obj.Code = &code
	}
	return openaicompat.ErrorResponse{Error: obj}
}

// writeError answers with err's status and body, as openaicompat.HTTPError
// gives them.
func (s *server) writeError(w *accessWriter, err error) {
	if b, ok := err.(errBusy); ok {
		// OpenAI's shape of a 429 for too many requests (its "type" is
		// "requests" or "tokens", the limit that was reached).
		w.Header().Set("Retry-After", strconv.Itoa(busyRetrySeconds))
		s.writeJSON(w, http.StatusTooManyRequests, errorBody(b.Error(), "requests", "", "rate_limit_exceeded"))
		return
	}
	status, body := openaicompat.HTTPError(err)
	s.writeJSON(w, status, body)
}

// noteError notes the error a stream ended with for the access log of w.
func noteError(w *accessWriter, err error) {
	_, body := openaicompat.HTTPError(err)
	w.err = errorName(body)
}

// errorName is what the access log says of an error body: its code, else
// its type.
func errorName(body openaicompat.ErrorResponse) string {
	if body.Error.Code != nil {
		return *body.Error.Code
	}
	return body.Error.Type
}

// writeJSON answers with v as JSON, within WriteTimeout.
func (s *server) writeJSON(w *accessWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		status, v = openaicompat.HTTPError(fmt.Errorf("could not encode the response: %w", err))
		b, _ = marshal(v)
	}
	w.Header().Set("Content-Type", "application/json")
	s.armWrite(w)
	if e, ok := v.(openaicompat.ErrorResponse); ok && status != http.StatusOK {
		w.err = errorName(e)
	}
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// armWrite gives the writes that follow WriteTimeout from now. (http.Server
// clears the deadline after each request.)
func (s *server) armWrite(w http.ResponseWriter) {
	if s.opts.WriteTimeout > 0 {
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	}
}

// clip is a client's string (an id, a name, a path) as an error quotes it:
// at most 64 bytes, and "…" when it was longer, so that an error's size
// does not depend on the request's.
func clip(s string) string { return utf8x.Clip(s, 64) }

// marshal is json.Marshal without the escaping of <, > and &, which would
// make the harmony markup of prompts and any such text in replies hard to
// read.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
