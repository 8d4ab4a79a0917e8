package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// accessWriter is the ResponseWriter the handlers write to (they take it
// as such, from ServeHTTP): it keeps what the access log says of the
// request. Unwrap lets http.ResponseController
// (the write deadlines, SSEWriter's flushes) reach the connection's own.
type accessWriter struct {
	http.ResponseWriter
	start  time.Time
	status int // 0 until the header is written

	// The completion's token counts, -1 until the model has answered.
	promptTokens, completionTokens int
	// err names the error the request was answered with, or a stream
	// ended with: its code, else its type.
	err string
	// tenant is the tenant of the request's API key, when the server has
	// keys.
	tenant string
}

func (a *accessWriter) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *accessWriter) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.ResponseWriter.Write(b)
}

func (a *accessWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// accessLog writes the request's line to the server's log, at level INFO
// with the message "request": method, path, status (that of the headers: a
// stream that ends with an error is a 200, with error), tenant when the
// request authenticated with an API key, prompt_tokens and
// completion_tokens when the model answered, error when there was one,
// and duration, from the request's start to the end of its response.
func (s *server) accessLog(a *accessWriter, r *http.Request) {
	if s.opts.Log == nil {
		return
	}
	status := a.status
	if status == 0 {
		status = http.StatusOK // net/http's, for a handler that wrote nothing
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status))
	if a.tenant != "" {
		attrs = append(attrs, slog.String("tenant", a.tenant))
	}
	if a.promptTokens >= 0 {
		attrs = append(attrs, slog.Int("prompt_tokens", a.promptTokens), slog.Int("completion_tokens", a.completionTokens))
	}
	if a.err != "" {
		attrs = append(attrs, slog.String("error", a.err))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(a.start)))
	s.opts.Log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
}
