package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestClippedErrors: ids, names, paths and content types of a megabyte (or
// as long as the header limit allows) are quoted clipped: the error body
// stays small.
func TestClippedErrors(t *testing.T) {
	ts := startServer(t, standIn{loadEncoding(t)}, nil)
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
		if resp.StatusCode != 400 || len(got) > 1024 || !strings.Contains(string(got), "xxx…") {
			t.Errorf("%.100s…: %d, %d bytes: %.300s", body, resp.StatusCode, len(got), got)
		}
	}
	long = strings.Repeat("x", 60<<10) // under the header limit
	req, _ := http.NewRequest(http.MethodPost, ts.URL+responsesPath, strings.NewReader(`{"model":"m","input":"hi"}`))
	req.Header.Set("Content-Type", "text/"+long)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 415 || len(got) > 1024 || !strings.Contains(string(got), "xxx…") {
		t.Errorf("Content-Type: %d, %d bytes: %.300s", resp.StatusCode, len(got), got)
	}
	resp, err = http.Post(ts.URL+"/"+long, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || len(got) > 1024 || !strings.Contains(string(got), "xxx…") {
		t.Errorf("path: %d, %d bytes: %.300s", resp.StatusCode, len(got), got)
	}
}
