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
// replaced: the completion comes from a replay file, or from the built-in
// stand-in model.
//
// # Running
//
//	go run ./examples/chatserver -replay FILE
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
//	-prompts FILE    append to FILE, per request, one JSON line
//	                 {"text": "...", "tokens": [...]}: the rendered prompt.
//	                 Line n of it is the prompt that got completion n.
//	-model NAME      the model name reported when a request names none
//	                 (default gpt-oss-120b); a request's own is echoed.
//	-delay DURATION  a pause after each streamed token (default 0).
//	-strict          fail a request whose completion is malformed (500, or
//	                 an error event) instead of recovering it as
//	                 openaicompat's lenient conversion does (the default).
//
// A replay line can be made with this module's harmony command:
//
//	printf '%s' '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>' |
//		go run ./cmd/harmony encode --special >>replay.jsonl
//
// Without -replay, the stand-in answers every request with an analysis
// message, then a final answer that echoes the first eight words of the last
// user message: "You said: WORDS" (see standIn in model.go).
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
// Streams have the Content-Type text/event-stream and are flushed after each
// event. Chat Completions sends "data: {chunk}" per chunk, then "data:
// [DONE]". Responses sends "event: TYPE" and "data: {event}" per event, as
// OpenAI does, ending with response.completed or response.incomplete.
//
// Errors have OpenAI's shape, {"error": {"message", "type", "param",
// "code"}}. An invalid request gets 400 with type "invalid_request_error"
// (the message names the problem, such as an unknown tool_call_id), a wrong
// path 404, a method other than POST 405, a content type other than
// application/json 415, a body over 8 MiB 413. Completions harmony cannot
// parse (a bad replay line), and a failed write to the prompt log, get 500
// with type "server_error" when not streamed. A stream that has started cannot change its status: it ends
// with an error instead — Chat Completions with "data: {"error": {...}}"
// and no [DONE], Responses with an "error" event ({"type": "error", "code",
// "message", "param", "sequence_number"}) and then response.failed (the
// response so far, status "failed", with an "error" object) instead of
// response.completed — and the connection closes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-harmony/harmony"
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
	promptsFile := fs.String("prompts", "", "append each rendered prompt to `FILE` as a JSON line")
	modelName := fs.String("model", "gpt-oss-120b", "the model `NAME` reported when a request names none")
	delay := fs.Duration("delay", 0, "pause `DURATION` after each streamed token")
	strict := fs.Bool("strict", false, "fail on malformed model output instead of recovering it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}

	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		return err
	}
	var m model = standIn{enc}
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
		fmt.Fprintf(stderr, "chatserver: warning: %s is not a loopback address: anyone who can reach it can use this server\n", ln.Addr())
	}
	srv := &http.Server{
		Handler:           newServer(enc, m, prompts, options{Model: *modelName, TokenDelay: *delay, Strict: *strict}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}
