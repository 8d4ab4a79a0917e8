// Command chatserver is a small OpenAI-compatible HTTP server with a
// stand-in for gpt-oss, so that client developers can test against gpt-oss
// behaviour offline, without a GPU. It serves
//
//	POST /v1/chat/completions   (Chat Completions)
//	POST /v1/responses          (Responses)
//
// each as one JSON response or, with "stream": true, as server-sent events.
//
// Every request takes the path it would take in a real gpt-oss server:
// openaicompat turns the body into a harmony conversation (its errors are
// answered with HTTP 400), harmony renders it with
// RenderConversationForCompletion(conv, RoleAssistant, nil), and the token
// ids "sampled" after that prompt go back through openaicompat to a
// response, a chunk stream or an event stream. Only the sampling is
// replaced: the completion comes from a replay file, from random tokens
// under the request's constraint masks (-sample), or from the built-in
// stand-in model.
//
// # Running
//
//	go run ./examples/chatserver
//
// serves the built-in stand-in model on 127.0.0.1:8080; -replay FILE serves
// recorded completions instead, and -sample SEED random ones. The server
// says on standard error where it listens and which model answers, then
// logs each request there.
//
// Flags:
//
//	-addr HOST:PORT  where to listen (default 127.0.0.1:8080, loopback only).
//	                 Port 0 picks a free port. The server always prints
//	                 "chatserver: listening on http://ADDR" on standard error,
//	                 and warns when ADDR is not a loopback address.
//	-replay FILE     the completions: one JSON array of token ids per line,
//	                 what the model would sample after the rendered prompt
//	                 (after its "<|start|>assistant"). Request n gets line n,
//	                 cycling back to the first line after the last; blank
//	                 lines are skipped; only requests that reach the model
//	                 (valid ones) take a line.
//	-sample SEED     sample random tokens under each request's constraint:
//	                 its tools, tool_choice and response format compiled
//	                 by openaicompat into a constrain.Envelope (see
//	                 sampler.go). Request n draws with (SEED, n). A proof of
//	                 the masks, not a model: the text is random.
//	-prompts FILE    append to FILE, per request, one JSON line
//	                 {"text": "...", "tokens": [...]}: the rendered prompt.
//	                 Line n of it is the prompt that got completion n.
//	-model NAME      the model name reported when a request names none
//	                 (default gpt-oss-120b); a request's own is echoed.
//	-context-window N  the model's context window in tokens (default
//	                 131072, gpt-oss's; 0: no limit): a prompt that does
//	                 not fit with room for the completion (max_tokens,
//	                 max_completion_tokens or max_output_tokens, else 4096)
//	                 gets 400 context_length_exceeded, unless a Responses
//	                 request sets truncation "auto", which drops old turns.
//	-delay DURATION  a pause after each streamed token (default 0).
//	-strict          fail a request whose completion is malformed (500, or
//	                 an error event) instead of recovering it as
//	                 openaicompat's lenient conversion does (the default).
//	-reasoning-field FIELD  the Chat Completions field of the reasoning:
//	                 reasoning (the default; OpenAI SDKs, the Vercel AI
//	                 SDK), reasoning_content (LangChain) or both.
//	-reasoning-keys-file FILE  AES keys (base64, one a line; blank lines
//	                 and lines starting with # skipped; the first seals,
//	                 all open) for the Responses reasoning sealed in
//	                 encrypted_content when a request includes
//	                 "reasoning.encrypted_content" (stateless tool loops
//	                 with store:false). Or give them in the environment,
//	                 CHATSERVER_REASONING_KEYS=KEY,KEY,… (not both).
//	                 Default: a random key of this process, so sealed
//	                 reasoning opens until it restarts. The keys are never
//	                 taken on the command line, which every user of the
//	                 machine can read: the former -reasoning-keys KEYS is
//	                 refused, saying so.
//	-api-keys FILE   require an API key, one of FILE's, and serve each
//	                 key's tenant apart (see "API keys and tenants").
//	                 Default: no keys, one tenant.
//	-store-bytes N   keep at most N bytes of Responses in memory, in all
//	                 (default 64 MiB, least recently used dropped first;
//	                 0: none): the output items, so that the item
//	                 references clients send with store (the API's
//	                 default) resolve, and each response's conversation,
//	                 for previous_response_id. Items are kept as the JSON
//	                 of their type's fields, and N counts those bytes, the
//	                 ids and about 128 bytes an entry. Requests with
//	                 store:false are not kept.
//	-max-concurrent N  run the model (compiling a request's constraint,
//	                 sampling) for at most N requests at once (default
//	                 twice GOMAXPROCS, the CPUs it may use; 0: no bound); a
//	                 request past them gets 429 rate_limit_exceeded with
//	                 Retry-After: 1, which OpenAI's SDKs wait before their
//	                 retry. Each request's model work runs outside any lock
//	                 shared with the others, so a slow one (a constraint
//	                 that takes seconds to compile) delays no other.
//
// and the limits on slow, idle and oversized clients (see "Limits"):
//
//	-read-header-timeout DURATION  to read a request's headers (default
//	                               10s; 0: the read timeout)
//	-read-timeout DURATION         to read a whole request, body included
//	                               (default 30s; 0: none)
//	-write-timeout DURATION        for each write: a whole non-streamed
//	                               response, or one event of a stream
//	                               (default 30s; 0: none)
//	-idle-timeout DURATION         to keep an idle keep-alive connection
//	                               open for the next request (default 2m;
//	                               0: the read timeout)
//	-max-header-bytes N            request headers (default 65536)
//	-max-body-bytes N              a request body (default 8 MiB); a larger
//	                               one gets 413
//
// # API keys and tenants
//
// Without -api-keys the server takes every request, and all of them share
// one Responses store: any client that holds a response's or an item's id
// can use it. With -api-keys FILE each request must carry one of the keys
// of FILE as OpenAI's clients send theirs, "Authorization: Bearer KEY"
// (the SDKs' apiKey), else it gets 401 in OpenAI's form, before its path
// or body is looked at:
//
//	{"error": {"message": "Incorrect API key provided. …", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}
//
// (for a request without a key, the message says so). FILE has one key
// and its tenant per line, separated by spaces; blank lines and lines
// starting with # are skipped; a tenant may have several keys, to rotate
// them:
//
//	# KEY                       TENANT
//	sk-acme-5Wb0cyq6SgG3x1Jz    acme
//	sk-acme-rotated-K8d2Lr0pQe  acme
//	sk-globex-Hq3nTz81LmWcV0a   globex
//
// Keys are compared in constant time, by their SHA-256 digests; the server
// keeps no key itself. A tenant's stored responses and items are its own
// (openaicompat.RequestOptions.Owner): previous_response_id and
// item_reference find only the tenant's own, and another tenant's id gets
// the very 400 of an id never stored, which quotes nothing of what the
// other tenant stored; sealed reasoning opens only for the tenant it was
// sealed for. The access log names each request's tenant. The server
// warns when FILE (or -reasoning-keys-file) can be read by other users.
// It serves plain HTTP: off loopback, put it behind TLS.
//
// # Replay files
//
// A replay file has one completion per line: the JSON array of the token
// ids the model samples after the prompt's "<|start|>assistant", its stop
// token included — the completion only, never the prompt. This module's
// harmony command makes a line from harmony text (--special turns the
// text of special tokens into those tokens; printf '%s' adds no newline,
// which would be a token of the completion):
//
//	printf '%s' '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>' |
//		go run ./cmd/harmony encode --special >>replay.jsonl
//
// Request n that reaches the model gets line n, cycling. A client that
// retries counts: OpenAI's SDKs retry a failed request (a 500, a
// connection error, a timeout) twice by default, and each retry is a new
// request that takes the next line, so the lines no longer match the
// conversation's turns. Turn retries off in such tests (max_retries=0 in
// the Python SDK), or give the failing turn's line once per attempt. (A
// request refused before the model, a 400 or a 429 past -max-concurrent,
// takes no line: its retry gets the line it would have had.)
//
// Without -replay or -sample, the built-in stand-in answers every request
// with an analysis message, then a final answer that echoes the first eight
// words of the last user message: "You said: WORDS" (see standIn in
// model.go).
//
// # Examples
//
//	curl -s localhost:8080/v1/chat/completions -H 'Content-Type: application/json' \
//		-d '{"model": "gpt-oss-120b", "messages": [{"role": "user", "content": "What is 2 + 2?"}]}'
//
//	curl -sN localhost:8080/v1/chat/completions -H 'Content-Type: application/json' \
//		-d '{"messages": [{"role": "user", "content": "Hi"}], "stream": true, "stream_options": {"include_usage": true}}'
//
//	curl -s localhost:8080/v1/responses -H 'Content-Type: application/json' \
//		-d '{"model": "gpt-oss-120b", "input": "What is 2 + 2?", "reasoning": {"effort": "low"}}'
//
//	curl -sN localhost:8080/v1/responses -H 'Content-Type: application/json' \
//		-d '{"input": "Hi", "stream": true}'
//
// # Behaviour
//
// Sampling, as a sampler with harmony's stop tokens would: the completion
// ends after its first <|return|> or <|call|>, and max_tokens or
// max_completion_tokens (Chat Completions) or max_output_tokens (Responses)
// cuts it to that many tokens, in which case the finish reason is "length"
// and the response "incomplete". Usage counts real tokens: the prompt's
// rendered length, the completion's length, and as reasoning tokens those
// of its analysis messages. The system message has harmony's defaults and
// today's date (UTC). Other sampling parameters (temperature, stop, seed, …)
// are accepted and have no effect; n must be 1.
//
// Parameters are checked as OpenAI checks them (openaicompat.DecodeRequest
// lists the rules): a top-level parameter that OpenAI's API does not have
// gets 400 with code "unknown_parameter", param its name and OpenAI's
// message ("Unrecognized request argument supplied: NAME" on Chat
// Completions, "Unknown parameter: 'NAME'." on Responses; OpenAI's Chat
// Completions leaves param null); parameters that change nothing here
// (service_tier, prompt_cache_key, safety_identifier, …) are accepted and
// ignored; a value that cannot be honoured (logprobs true, audio, n above
// 1, background true, …) gets 400 "unsupported_parameter" naming it.
// Unknown fields inside messages, tools and input items are ignored. Each
// function's parameters and a json_schema response format must be a valid
// JSON Schema (package jsonschema checks them, fetching nothing): else 400
// with param "tools[I].function.parameters" (Responses: "tools[I].parameters")
// and code "invalid_function_parameters", as OpenAI answers, or param
// "response_format.json_schema.schema" (Responses: "text.format.schema")
// and code "invalid_json_schema".
//
// Streams have the Content-Type text/event-stream and are flushed after each
// event. Chat Completions sends "data: {chunk}" per chunk, then "data:
// [DONE]". Responses sends "event: TYPE" and "data: {event}" per event, as
// OpenAI does, ending with response.completed or response.incomplete.
//
// Errors have OpenAI's shape, {"error": {"message", "type", "param",
// "code"}}, with the status and body openaicompat.HTTPError gives: an
// invalid request gets 400 with type "invalid_request_error" (the message
// names the problem, such as an unknown tool_call_id), a body that is not
// one JSON object 400 with code "invalid_json", a body over the limit 413,
// and one that would take more than 16 times its size in memory decoded
// (millions of empty objects, say) 400 with code "request_too_complex",
// refused by openaicompat.DecodeRequest before it decodes anything.
// The server's own refusals: a missing or unknown API key 401 (with
// -api-keys), a wrong path 404, a method other than POST 405, a content
// type other than application/json 415, and a request past
// -max-concurrent 429, in the shape of OpenAI's rate-limit errors (type
// "requests", code "rate_limit_exceeded") with Retry-After: 1. Messages
// quote a client's ids, names, paths and content types clipped to 64
// bytes, so that an error's size does not depend on the request's. Completions
// harmony cannot parse (a bad replay line, with -strict), and a failed
// write to the prompt log, get 500 with type "server_error" when not
// streamed. A stream that has started cannot change its status: it ends
// with an error instead — Chat Completions with "data: {"error": {...}}"
// and no [DONE], Responses with an "error" event ({"type": "error", "code",
// "message", "param", "sequence_number"}) and then response.failed (the
// response so far, status "failed", with an "error" object) instead of
// response.completed — and the response ends there. Streams are written
// with openaicompat.SSEWriter.
//
// Malformed completions (a header without its "<|start|>assistant", a
// message from another role, text outside any message) are recovered as
// openaicompat recovers them, the setting a production server needs: the
// client gets 200 and what the completion can be read as. With -strict
// they are errors instead, to test a model's output.
//
// # Logging
//
// Each request is logged on standard error when its response ends, one
// line by log/slog's text handler: msg=request, method, path, status (a
// stream's is 200, even when it ends with an error), tenant (with
// -api-keys), prompt_tokens and
// completion_tokens (when the model was reached), error (the code, else
// the type, of the error the request was answered with or its stream
// ended with) and duration:
//
//	time=2025-06-28T12:00:00.000Z level=INFO msg=request method=POST path=/v1/chat/completions status=200 prompt_tokens=68 completion_tokens=12 duration=1.2ms
//
// # Limits
//
// A client that is slow or idle on purpose holds a connection and a
// goroutine; each limit bounds how long. Reading: the headers must arrive
// within -read-header-timeout and the whole request within -read-timeout
// (http.Server's ReadHeaderTimeout and ReadTimeout, counted from the
// connection's accept or, for a later request on it, from its first
// bytes), else the connection is closed, so a body sent a byte at a time
// is cut off (its handler answers the failed read with a 500, which such a
// client seldom reads). Idle: a keep-alive connection waits -idle-timeout
// for its next request; the default is longer than common clients' own
// pool timeouts (Go's http.Transport keeps idle connections 90 s), so a
// client seldom sends on a connection the server is closing.
//
// Writing: http.Server.WriteTimeout is not used, because it counts from
// the request's start and would cut every stream that lasts longer.
// Instead -write-timeout is a deadline per write
// (http.ResponseController.SetWriteDeadline): a non-streamed response must
// be written within it, and each event of a stream within it of the
// event's write (openaicompat.SSEWriter.WriteTimeout), while the time
// between events, such as -delay or a real model's sampling, does not
// count. A client that stops reading a stream fills the connection's
// buffers, its next write fails after -write-timeout, the handler stops,
// and the connection closes. TestHostileConnections shows each limit at
// work, with hundreds of such clients.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/openaicompat"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chatserver:", err)
		os.Exit(1)
	}
}

// run parses the flags and serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("chatserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: a free port)")
	replayFile := fs.String("replay", "", "replay the completions of `FILE`, one JSON array of token ids per line")
	sampleSeed := fs.String("sample", "", "sample random tokens under each request's constraint mask, seeded with `SEED`")
	promptsFile := fs.String("prompts", "", "append each rendered prompt to `FILE` as a JSON line")
	modelName := fs.String("model", "gpt-oss-120b", "the model `NAME` reported when a request names none")
	contextWindow := fs.Int("context-window", gptOssContextWindow, "refuse prompts that do not fit a context window of `N` tokens with the completion (0: no limit)")
	delay := fs.Duration("delay", 0, "pause `DURATION` after each streamed token")
	strict := fs.Bool("strict", false, "fail on malformed model output instead of recovering it")
	reasoningField := fs.String("reasoning-field", "reasoning", "the Chat Completions `FIELD` of the reasoning: reasoning, reasoning_content or both")
	reasoningKeysFile := fs.String("reasoning-keys-file", "", "seal Responses reasoning with the AES keys of `FILE` (base64, one a line; the first seals,\nall open), or of $"+reasoningKeysEnv+" (comma-separated); default: a random key of this process")
	reasoningKeys := fs.String("reasoning-keys", "", "no longer accepted: `KEYS` on the command line are readable by every user; see -reasoning-keys-file")
	apiKeysFile := fs.String("api-keys", "", "require a Bearer API key of `FILE` (one \"KEY TENANT\" a line), and keep each tenant's\nstored responses its own; default: no keys, one tenant")
	storeBytes := fs.Int64("store-bytes", 64<<20, "keep at most `N` bytes of Responses items and conversations, for item references and\nprevious_response_id (0: none)")
	maxConcurrent := fs.Int("max-concurrent", 2*runtime.GOMAXPROCS(0), "run the model for at most `N` requests at once, answer the others 429 (0: no bound)")
	l := defaultLimits
	fs.DurationVar(&l.ReadHeaderTimeout, "read-header-timeout", l.ReadHeaderTimeout, "read a request's headers within `DURATION` (0: the read timeout)")
	fs.DurationVar(&l.ReadTimeout, "read-timeout", l.ReadTimeout, "read a whole request, body included, within `DURATION` (0: none)")
	fs.DurationVar(&l.WriteTimeout, "write-timeout", l.WriteTimeout, "write a response, or each event of a stream, within `DURATION` (0: none)")
	fs.DurationVar(&l.IdleTimeout, "idle-timeout", l.IdleTimeout, "close a keep-alive connection idle for `DURATION` (0: the read timeout)")
	fs.IntVar(&l.MaxHeaderBytes, "max-header-bytes", l.MaxHeaderBytes, "refuse request headers over `N` bytes")
	fs.Int64Var(&l.MaxBodyBytes, "max-body-bytes", l.MaxBodyBytes, "refuse request bodies over `N` bytes with 413")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err := l.check(); err != nil {
		fs.Usage()
		return err
	}
	var field openaicompat.ReasoningField
	if err := field.UnmarshalText([]byte(*reasoningField)); err != nil {
		fs.Usage()
		return err
	}
	if *reasoningKeys != "" {
		return errReasoningKeysFlag
	}
	sealer, err := loadReasoningSealer(*reasoningKeysFile, os.Getenv(reasoningKeysEnv), stderr)
	if err != nil {
		return err
	}
	keys, err := loadAPIKeys(*apiKeysFile, stderr)
	if err != nil {
		return err
	}
	if *storeBytes < 0 {
		fs.Usage()
		return fmt.Errorf("-store-bytes %d: want 0 or more", *storeBytes)
	}
	if *contextWindow < 0 {
		fs.Usage()
		return fmt.Errorf("-context-window %d: want 0 or more", *contextWindow)
	}
	if *maxConcurrent < 0 {
		fs.Usage()
		return fmt.Errorf("-max-concurrent %d: want 0 or more", *maxConcurrent)
	}
	store := *storeBytes
	if store == 0 {
		store = -1 // none
	}

	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		return err
	}
	var m model = standIn{enc}
	about := "the built-in stand-in, which echoes the user (-replay FILE or -sample SEED for others)"
	if *replayFile != "" {
		f, err := os.Open(*replayFile)
		if err != nil {
			return err
		}
		r, err := readReplay(enc, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *replayFile, err)
		}
		m = r
		about = fmt.Sprintf("replay of %s (%d lines, cycling)", *replayFile, len(r.lines))
		if len(r.lines) == 1 {
			about = fmt.Sprintf("replay of %s (1 line, repeated)", *replayFile)
		}
	}
	if *sampleSeed != "" {
		if *replayFile != "" {
			fs.Usage()
			return errors.New("-sample and -replay exclude each other")
		}
		seed, err := strconv.ParseUint(*sampleSeed, 10, 64)
		if err != nil {
			fs.Usage()
			return fmt.Errorf("-sample %q: want a seed, an unsigned integer", *sampleSeed)
		}
		m = newSampler(enc, seed)
		about = fmt.Sprintf("random tokens under each request's constraint, seed %d", seed)
	}
	var prompts io.Writer
	if *promptsFile != "" {
		f, err := os.OpenFile(*promptsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		prompts = f
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "chatserver: listening on http://%s\n", ln.Addr())
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		if keys == nil {
			fmt.Fprintf(stderr, "chatserver: warning: %s is not a loopback address: anyone who can reach it can use this server\n", ln.Addr())
		} else {
			fmt.Fprintf(stderr, "chatserver: warning: %s is not a loopback address: requests and their API keys cross the network in plain HTTP\n", ln.Addr())
		}
	}
	fmt.Fprintf(stderr, "chatserver: model: %s\n", about)
	if keys != nil {
		fmt.Fprintf(stderr, "chatserver: API keys: %d, of %d tenants, from %s\n", len(keys.keys), keys.tenants, *apiKeysFile)
	}
	h := newServer(enc, m, prompts, options{Model: *modelName, TokenDelay: *delay, Strict: *strict,
		MaxBodyBytes: l.MaxBodyBytes, WriteTimeout: l.WriteTimeout,
		ReasoningField: field, Sealer: sealer, StoreBytes: store, Keys: keys,
		ContextWindow: *contextWindow, MaxConcurrent: *maxConcurrent, Log: slog.New(slog.NewTextHandler(stderr, nil))})
	srv := newHTTPServer(h, l)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close() // streams still running: cut them
		}
	}()
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// gptOssContextWindow is the context window of both gpt-oss models, in
// tokens: the -context-window default.
const gptOssContextWindow = 131072

// limits bound what slow, idle and oversized clients can hold (see the
// package doc's "Limits"), as the flags set them.
type limits struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// WriteTimeout is per write (options.WriteTimeout), not
	// http.Server.WriteTimeout.
	WriteTimeout   time.Duration
	IdleTimeout    time.Duration
	MaxHeaderBytes int
	MaxBodyBytes   int64
}

// defaultLimits are the flags' defaults.
var defaultLimits = limits{
	// Headers are small: a client has no reason to be slow with them.
	ReadHeaderTimeout: 10 * time.Second,
	// A largest body (8 MiB) at about 2 Mbit/s.
	ReadTimeout: 30 * time.Second,
	// A client that takes no bytes for this long is stuck or gone.
	WriteTimeout: 30 * time.Second,
	// Longer than Go's http.Transport keeps idle connections (90 s).
	IdleTimeout: 2 * time.Minute,
	// An API request has a few short headers; net/http's default is 1 MiB.
	MaxHeaderBytes: 64 << 10,
	MaxBodyBytes:   8 << 20,
}

// check refuses negative values, which net/http would read as 0 without
// saying so.
func (l limits) check() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"-read-header-timeout", l.ReadHeaderTimeout},
		{"-read-timeout", l.ReadTimeout},
		{"-write-timeout", l.WriteTimeout},
		{"-idle-timeout", l.IdleTimeout},
	} {
		if d.v < 0 {
			return fmt.Errorf("%s %v: want 0 or more", d.name, d.v)
		}
	}
	if l.MaxHeaderBytes < 1 || l.MaxBodyBytes < 1 {
		return fmt.Errorf("-max-header-bytes %d, -max-body-bytes %d: want at least 1", l.MaxHeaderBytes, l.MaxBodyBytes)
	}
	return nil
}

// newHTTPServer returns the server of h with the limits l. Its
// WriteTimeout is 0 on purpose: h sets a deadline per write instead.
func newHTTPServer(h http.Handler, l limits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
}
