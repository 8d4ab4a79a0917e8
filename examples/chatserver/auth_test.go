package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The keys of the tests' two tenants.
const (
	keyA = "sk-tenant-a-0123456789"
	keyB = "sk-tenant-b-9876543210"
)

// testKeys are the tests' API keys: keyA of tenant a, keyB of tenant b.
func testKeys(t *testing.T) *apiKeys {
	t.Helper()
	k, err := readAPIKeys([]byte("# test keys\n" + keyA + " a\n\n" + keyB + "\tb\n"))
	require.NoError(t, err)
	return k
}

// postAs posts body to url with the API key (none when key is "") and
// returns the response with its whole body.
func postAs(t *testing.T, url, key, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestAPIKeys: with keys, a request without one of them gets 401 in
// OpenAI's form before anything else is looked at, and one with a key is
// served and logged with its tenant.
func TestAPIKeys(t *testing.T) {
	log := make(recordHandler, 16)
	ts := startServerWith(t, standIn{testenc.Encoding(t)}, nil, options{Keys: testKeys(t), Log: slog.New(log)})
	const body = `{"model":"m","input":"Hi"}`
	const (
		missing = `{"error":{"message":"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
		wrong   = `{"error":{"message":"Incorrect API key provided. Ask this server's operator for a key.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	)
	for _, tc := range []struct {
		name, path, header, want string
	}{
		{"no header", responsesPath, "", missing},
		{"no key", responsesPath, "Bearer ", missing},
		{"basic", responsesPath, "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+keyA)), missing},
		{"wrong key", responsesPath, "Bearer sk-tenant-a-0123456788", wrong},
		{"prefix of a key", chatPath, "Bearer " + keyA[:len(keyA)-1], wrong},
		{"key and more", chatPath, "Bearer " + keyA + "0", wrong},
		{"two keys", chatPath, "Bearer " + keyA + " " + keyB, wrong},
		{"unknown path", "/v1/models", "Bearer nope", wrong},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+tc.path, strings.NewReader(body))
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s: status", tc.name)
		assert.Equal(t, tc.want, strings.TrimSpace(string(got)), "%s: body", tc.name)
		assert.Equal(t, `Bearer realm="chatserver"`, resp.Header.Get("WWW-Authenticate"), "%s: WWW-Authenticate", tc.name)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%s: Content-Type", tc.name)
		l := log.next(t)
		assert.Equal(t, int64(401), l["status"], "%s: access log %v", tc.name, l)
		assert.Equal(t, "invalid_api_key", l["error"], "%s: access log %v", tc.name, l)
		assert.Equal(t, nil, l["tenant"], "%s: access log %v", tc.name, l)
	}
	for _, tc := range []struct{ key, tenant string }{{keyA, "a"}, {keyB, "b"}} {
		for _, scheme := range []string{"Bearer ", "bearer  "} {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+responsesPath, strings.NewReader(body))
			req.Header.Set("Authorization", scheme+tc.key)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s%s: status", scheme, tc.key)
			l := log.next(t)
			assert.Equal(t, int64(200), l["status"], "%s: access log %v", tc.tenant, l)
			assert.Equal(t, tc.tenant, l["tenant"], "%s: access log %v", tc.tenant, l)
		}
	}

	// Without keys, no key is needed (and any is taken).
	open := startServer(t, standIn{testenc.Encoding(t)}, nil)
	for _, key := range []string{"", "sk-anything"} {
		resp, got := postAs(t, open.URL+responsesPath, key, body)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "no keys, key %q: %s", key, got)
	}
}

// TestReadAPIKeys refuses key files that are not KEY TENANT lines, and
// never quotes a key in its errors.
func TestReadAPIKeys(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"", "no keys: want one KEY TENANT line or more"},
		{"# only a comment\n\n", "no keys: want one KEY TENANT line or more"},
		{"sk-secret-1\n", "line 1: want KEY TENANT, two fields"},
		{"sk-secret-1 a b\n", "line 1: want KEY TENANT, two fields"},
		{"sk-secret-1 a\n# rotated\nsk-secret-1 b\n", "line 3: the key of line 1 again"},
	} {
		_, err := readAPIKeys([]byte(tc.file))
		assert.EqualError(t, err, tc.want, "%q", tc.file)
	}
	k, err := readAPIKeys([]byte("k1 a\nk2 a\nk3 b\n"))
	require.NoError(t, err)
	require.Len(t, k.keys, 3, "%+v", k)
	require.Equal(t, 2, k.tenants, "%+v", k)
	for key, want := range map[string]string{"k1": "a", "k2": "a", "k3": "b", "k4": "", "": "", "k": ""} {
		got, ok := k.tenant(key)
		assert.Equal(t, want, got, "tenant(%q)", key)
		assert.Equal(t, want != "", ok, "tenant(%q) found", key)
	}
}

// secretLine is tenant a's completion: reasoning and a call that hold
// tenant a's secret.
const secretLine = `<|channel|>analysis<|message|>The vault code is SECRET-7731.<|end|>` +
	`<|start|>assistant<|channel|>commentary<|message|>Looking up SECRET-7731.<|end|>` +
	`<|start|>assistant<|channel|>commentary to=functions.get_secret <|constrain|>json<|message|>{"code":"SECRET-7731"}<|call|>`

// TestTenantsApart: tenant a stores a conversation with a secret; tenant b,
// holding every id of it, gets for each exactly what an id never stored
// gets (the same status and body, the id aside), and the secret appears
// in none of b's responses. Tenant a itself continues its conversation.
func TestTenantsApart(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServerWith(t, replayOf(enc, secretLine), prompts, options{Keys: testKeys(t)})
	const tools = `"tools":[{"type":"function","name":"get_secret","parameters":{"type":"object","properties":{"code":{"type":"string"}}}}]`

	// Tenant a: stored (the default), and sealed (store:false).
	var stored, sealed openaicompat.Response
	resp, got := postAs(t, ts.URL+responsesPath, keyA, `{"model":"m",`+tools+`,"input":"My vault code is SECRET-7731. Check it."}`)
	require.Equal(t, 200, resp.StatusCode, "tenant a: %s", got)
	unmarshal(t, got, &stored)
	resp, got = postAs(t, ts.URL+responsesPath, keyA, `{"model":"m",`+tools+`,"store":false,"include":["reasoning.encrypted_content"],"input":"Check SECRET-7731."}`)
	require.Equal(t, 200, resp.StatusCode, "tenant a, sealed: %s", got)
	unmarshal(t, got, &sealed)
	require.Len(t, stored.Output, 3, "tenant a's stored output")
	require.Len(t, sealed.Output, 3, "tenant a's sealed output")
	require.NotEmpty(t, sealed.Output[0].EncryptedContent, "tenant a's sealed reasoning")
	call := stored.Output[2]

	// fake makes an id of the same length that no one stored (a sealed
	// text changed in its middle).
	fake := func(id string) string {
		mid, c := len(id)/2, "A"
		if id[mid] == 'A' {
			c = "B"
		}
		return id[:mid] + c + id[mid+1:]
	}
	item := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	sealedRS := sealed.Output[0]
	for _, tc := range []struct {
		name string
		body func(id string) string
		id   string
	}{
		{"previous_response_id", func(id string) string {
			return `{"model":"m","previous_response_id":"` + id + `","input":"What was the code?"}`
		}, stored.ID},
		{"previous_response_id and a tool output", func(id string) string {
			return `{"model":"m",` + tools + `,"previous_response_id":"` + id + `","input":[{"type":"function_call_output","call_id":"` + call.CallID + `","output":"leak"}]}`
		}, stored.ID},
		{"item_reference to the reasoning", func(id string) string {
			return `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"` + id + `"}]}`
		}, stored.Output[0].ID},
		{"item_reference to the message", func(id string) string {
			return `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"` + id + `"}]}`
		}, stored.Output[1].ID},
		{"item reference by id to the call", func(id string) string {
			return `{"model":"m",` + tools + `,"input":[{"role":"user","content":"hi"},{"id":"` + id + `"},{"type":"function_call_output","call_id":"` + call.CallID + `","output":"x"}]}`
		}, call.ID},
		{"sealed reasoning", func(sealed string) string {
			rs := sealedRS
			rs.EncryptedContent = sealed
			return `{"model":"m",` + tools + `,"store":false,"input":[{"role":"user","content":"hi"},` + item(rs) + `]}`
		}, sealedRS.EncryptedContent},
	} {
		respB, gotB := postAs(t, ts.URL+responsesPath, keyB, tc.body(tc.id))
		respU, gotU := postAs(t, ts.URL+responsesPath, keyB, tc.body(fake(tc.id)))
		assert.Equal(t, 400, respB.StatusCode, "%s: tenant b's status for a's id: %s", tc.name, gotB)
		assert.Equal(t, respU.StatusCode, respB.StatusCode, "%s: tenant b's status for a's id, for an unknown id", tc.name)
		assert.Equal(t, strings.ReplaceAll(string(gotU), clip(fake(tc.id)), "ID"), strings.ReplaceAll(string(gotB), clip(tc.id), "ID"),
			"%s: tenant b's body for a's id, for an unknown id", tc.name)
		assert.NotContains(t, string(gotB), "SECRET", "%s: tenant b reads tenant a's secret", tc.name)
		assert.NotContains(t, string(gotB), "vault", "%s: tenant b reads tenant a's secret", tc.name)
	}
	assert.Equal(t, 2, strings.Count(prompts.String(), "\n"), "tenant b's requests reached the model:\n%s", prompts.String())

	// Tenant a continues its own conversation.
	resp, got = postAs(t, ts.URL+responsesPath, keyA, `{"model":"m",`+tools+`,"previous_response_id":"`+stored.ID+
		`","input":[{"type":"function_call_output","call_id":"`+call.CallID+`","output":"ok"}]}`)
	assert.Equal(t, 200, resp.StatusCode, "tenant a continues: %s", got)
	if lines := strings.Split(strings.TrimSpace(prompts.String()), "\n"); assert.Len(t, lines, 3, "tenant a's prompts") {
		assert.Contains(t, lines[2], "My vault code is SECRET-7731.", "tenant a's third prompt lacks its conversation")
		assert.Contains(t, lines[2], `{\"code\":\"SECRET-7731\"}`, "tenant a's third prompt lacks its conversation")
	}
}

// TestSealedReasoningBound: sealed reasoning sent back under another item's
// id (of the same response, or of another) is a 400; under its own it
// opens.
func TestSealedReasoningBound(t *testing.T) {
	enc := testenc.Encoding(t)
	// Ids unique across responses, as random ones are (the tests' usual
	// counter starts again with each response).
	ids := counterIDs()
	ts := httptest.NewServer(newServer(enc, replayOf(enc, toolLine), nil, options{NewIDs: func() func() string { return ids }}))
	defer ts.Close()
	const extra = `,"store":false,"include":["reasoning.encrypted_content"]`
	first := `{"model":"m","tools":[` + responsesWeatherTool + `],"input":[{"role":"user","content":"Weather in Oslo?"}]` + extra + `}`
	var r1, r2 openaicompat.Response
	unmarshal(t, postOK(t, ts.URL+responsesPath, first, "application/json"), &r1)
	unmarshal(t, postOK(t, ts.URL+responsesPath, first, "application/json"), &r2)
	rs, call := r1.Output[0], r1.Output[len(r1.Output)-1]
	send := func(rs openaicompat.Item) (*http.Response, []byte) {
		input, _ := json.Marshal([]any{
			map[string]string{"role": "user", "content": "Weather in Oslo?"}, rs, call,
			map[string]string{"type": "function_call_output", "call_id": call.CallID, "output": `{"temp_c": 21}`},
		})
		return post(t, ts.URL+responsesPath, `{"model":"m","tools":[`+responsesWeatherTool+`],"input":`+string(input)+extra+`}`)
	}
	resp, got := send(rs)
	require.Equal(t, 200, resp.StatusCode, "its own id: %s", got)
	for _, id := range []string{r1.Output[1].ID, r2.Output[0].ID, "rs_forged", ""} {
		swapped := rs
		swapped.ID = id
		resp, got := send(swapped)
		want := `{"error":{"message":"input[1].encrypted_content: encrypted reasoning cannot be opened: reasoning item \"` + id +
			`\": it was changed, or sealed for another item","type":"invalid_request_error","param":"input[1].encrypted_content","code":"invalid_encrypted_content"}}`
		assert.Equal(t, 400, resp.StatusCode, "id %q: status", id)
		assert.Equal(t, want, strings.TrimSpace(string(got)), "id %q: body", id)
	}
}

// writeSecret writes a file only its owner can read.
func writeSecret(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// runServer runs the command with args (and the environment the test
// set) until the test ends, and returns its address and its standard
// error so far once it listens.
func runServer(t *testing.T, args ...string) (addr string, stderr *syncBuffer) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done, "run %q", args)
	})
	stderr = &syncBuffer{}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if a, ok := strings.CutPrefix(sc.Text(), "chatserver: listening on http://"); ok {
				listening <- a
			}
		}
		close(listening)
	}()
	select {
	case a, ok := <-listening:
		if !ok {
			require.Fail(t, "the server stopped", "run %q: %v\n%s", args, <-done, stderr.String())
		}
		return a, stderr
	case <-time.After(time.Minute): // only to stop a hung test
		require.Fail(t, "no address", "run %q", args)
	}
	return "", nil
}

// TestSecretsFromFilesAndEnvironment runs the command with its keys in
// files and in the environment: the API keys of -api-keys authenticate,
// and reasoning sealed by a server with the keys of -reasoning-keys-file
// opens in another with the same key first in $CHATSERVER_REASONING_KEYS,
// so it is the keys given that seal. Keys on the command line are
// refused.
func TestSecretsFromFilesAndEnvironment(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	other := base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	apiFile := writeSecret(t, "api-keys", keyA+" a\n")
	keysFile := writeSecret(t, "reasoning-keys", "# the sealing key\n"+key+"\n\n"+other+"\n")
	const extra = `,"store":false,"include":["reasoning.encrypted_content"]`
	first := `{"model":"m","tools":[` + responsesWeatherTool + `],"input":[{"role":"user","content":"Weather in Oslo?"}]` + extra + `}`

	enc := testenc.Encoding(t)
	line, _ := json.Marshal(enc.EncodeWithSpecialTokens(toolLine))
	replay := writeSecret(t, "replay.jsonl", string(line)+"\n")
	t.Setenv(reasoningKeysEnv, "")
	addr1, stderr := runServer(t, "-replay", replay, "-api-keys", apiFile, "-reasoning-keys-file", keysFile)
	resp, got := postAs(t, "http://"+addr1+responsesPath, "", first)
	require.Equal(t, 401, resp.StatusCode, "no key: %s", got)
	resp, got = postAs(t, "http://"+addr1+responsesPath, keyA, first)
	require.Equal(t, 200, resp.StatusCode, "key of the file: %s", got)
	assert.Contains(t, stderr.String(), "chatserver: API keys: 1, of 1 tenants, from "+apiFile+"\n", "stderr")
	assert.NotContains(t, stderr.String(), "warning", "stderr")
	var r openaicompat.Response
	unmarshal(t, got, &r)
	rs := r.Output[0]

	t.Setenv(reasoningKeysEnv, other+", "+key) // the file's key second: it still opens
	addr2, _ := runServer(t, "-replay", replay, "-api-keys", apiFile)
	var call openaicompat.Item
	for _, it := range r.Output {
		if it.Type == "function_call" {
			call = it
		}
	}
	input, _ := json.Marshal([]any{map[string]string{"role": "user", "content": "Weather in Oslo?"}, rs, call,
		map[string]string{"type": "function_call_output", "call_id": call.CallID, "output": `{"temp_c": 21}`}})
	again := `{"model":"m","tools":[` + responsesWeatherTool + `],"input":` + string(input) + extra + `}`
	resp, got = postAs(t, "http://"+addr2+responsesPath, keyA, again)
	assert.Equal(t, 200, resp.StatusCode, "sealed by the file's key, opened by the environment's: %s", got)
	t.Setenv(reasoningKeysEnv, other) // without the sealing key
	addr3, _ := runServer(t, "-replay", replay, "-api-keys", apiFile)
	resp, got = postAs(t, "http://"+addr3+responsesPath, keyA, again)
	assert.Equal(t, 400, resp.StatusCode, "without the sealing key: %s", got)
	assert.Contains(t, string(got), "invalid_encrypted_content", "without the sealing key")

	// Refusals, which never show a key.
	loose := filepath.Join(t.TempDir(), "loose")
	require.NoError(t, os.WriteFile(loose, []byte(key+"\n"), 0o644))
	t.Setenv(reasoningKeysEnv, "")
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"-reasoning-keys", key}, errReasoningKeysFlag.Error()},
		{key, []string{"-reasoning-keys-file", keysFile}, "-reasoning-keys-file and $CHATSERVER_REASONING_KEYS both give reasoning keys: give them one way"},
		{key + ",not base64!", nil, "$CHATSERVER_REASONING_KEYS: key 2 is not base64"},
		{"c2hvcnQ=", nil, "$CHATSERVER_REASONING_KEYS: openaicompat: reasoning key 0: crypto/aes: invalid key size 5"},
		{"", []string{"-reasoning-keys-file", writeSecret(t, "bad", "# none\n")}, "no keys"},
		{"", []string{"-reasoning-keys-file", filepath.Join(t.TempDir(), "absent")}, "-reasoning-keys-file: open "},
		{"", []string{"-api-keys", writeSecret(t, "bad-api", keyA+"\n")}, "line 1: want KEY TENANT, two fields"},
		{"", []string{"-api-keys", filepath.Join(t.TempDir(), "absent")}, "-api-keys: open "},
	} {
		t.Setenv(reasoningKeysEnv, tc.env)
		var stderr strings.Builder
		err := run(t.Context(), append([]string{"-addr", "127.0.0.1:0"}, tc.args...), &stderr)
		if assert.ErrorContains(t, err, tc.want, "%q %q", tc.env, tc.args) {
			assert.NotContains(t, err.Error(), key, "%q %q: the error shows a key", tc.env, tc.args)
			assert.NotContains(t, err.Error(), keyA, "%q %q: the error shows a key", tc.env, tc.args)
		}
	}
	t.Setenv(reasoningKeysEnv, "")
	_, stderr = runServer(t, "-reasoning-keys-file", loose)
	assert.Contains(t, stderr.String(), "chatserver: warning: other users may read "+loose+" (mode 0644): chmod 600 it\n", "a key file others can read: stderr")
}
