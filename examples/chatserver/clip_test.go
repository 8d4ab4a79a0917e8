package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkClipped checks an error answer's status, that its body stays small
// and that it quotes the long text clipped.
func checkClipped(t *testing.T, what string, status int, resp *http.Response, got []byte) {
	t.Helper()
	assert.Equal(t, status, resp.StatusCode, "%s: status; %.300s", what, got)
	assert.LessOrEqual(t, len(got), 1024, "%s: bytes; %.300s", what, got)
	assert.Contains(t, string(got), "xxx…", "%s: not clipped; %.300s", what, got)
}

// TestClippedErrors: ids, names, paths and content types of a megabyte (or
// as long as the header limit allows) are quoted clipped: the error body
// stays small.
func TestClippedErrors(t *testing.T) {
	ts := startServer(t, standIn{testenc.Encoding(t)}, nil)
	long := strings.Repeat("x", 1<<20)
	for _, body := range []string{
		`{"model":"m","previous_response_id":"` + long + `","input":"hi"}`,
		`{"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"` + long + `"}]}`,
		`{"model":"m","input":[{"type":"function_call_output","call_id":"` + long + `","output":"x"}]}`,
		`{"model":"m","input":"hi","` + long + `":1}`,
		`{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"` + long + `","schema":{"type":"objekt"}}}}`,
		`{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"f","schema":{"properties":{"` + long + `":{"type":"objekt"}}}}}}`,
	} {
		resp, got := post(t, ts.URL+responsesPath, body)
		checkClipped(t, body[:100]+"…", 400, resp, got)
	}
	long = strings.Repeat("x", 60<<10) // under the header limit
	req, _ := http.NewRequest(http.MethodPost, ts.URL+responsesPath, strings.NewReader(`{"model":"m","input":"hi"}`))
	req.Header.Set("Content-Type", "text/"+long)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkClipped(t, "Content-Type", 415, resp, got)
	resp, err = http.Post(ts.URL+"/"+long, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	checkClipped(t, "path", 404, resp, got)
}
