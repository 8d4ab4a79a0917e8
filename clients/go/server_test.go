package clients

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chatserverBin is the examples/chatserver binary the checks start: $CHATSERVER
// (clients/run builds it), else one built by TestMain.
var chatserverBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	chatserverBin = os.Getenv("CHATSERVER")
	if chatserverBin == "" {
		dir, err := os.MkdirTemp("", "clients-go-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		chatserverBin = filepath.Join(dir, "chatserver")
		cmd := exec.Command("go", "build", "-o", chatserverBin, "github.com/go-harmony/harmony/examples/chatserver")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building the chatserver:", err)
			return 1
		}
	}
	return m.Run()
}

// completion is one replayed completion: its harmony text (what the model
// writes after "<|start|>assistant"), token ids, and reasoning tokens.
type completion struct {
	Text            string
	IDs             []harmony.Token
	ReasoningTokens int
}

func encode(t *testing.T, text string) completion {
	t.Helper()
	enc := testenc.Encoding(t)
	c := completion{Text: text, IDs: enc.EncodeWithSpecialTokens(text)}
	// The analysis messages' tokens, headers included: the first message
	// starts after the prompt's "<|start|>assistant", each later one at its
	// "<|start|>".
	for i, msg := range strings.Split(text, "<|start|>") {
		if strings.HasPrefix(strings.TrimPrefix(msg, "assistant"), "<|channel|>analysis") {
			if i > 0 {
				msg = "<|start|>" + msg
			}
			c.ReasoningTokens += len(enc.EncodeWithSpecialTokens(msg))
		}
	}
	return c
}

// server is a chatserver that answers request n with completion n.
type server struct {
	BaseURL     string
	Completions []completion
	promptLog   string
}

var listening = regexp.MustCompile(`chatserver: listening on http://(\S+)`)

// startServer starts a chatserver over the completions, stopped when the
// test ends.
func startServer(t *testing.T, completions ...string) *server {
	t.Helper()
	return startServerFlags(t, nil, completions...)
}

// startServerFlags is startServer with more flags for the chatserver.
func startServerFlags(t *testing.T, flags []string, completions ...string) *server {
	t.Helper()
	dir := t.TempDir()
	s := &server{promptLog: filepath.Join(dir, "prompts.jsonl")}
	var replay strings.Builder
	for _, text := range completions {
		c := encode(t, text)
		s.Completions = append(s.Completions, c)
		line, _ := json.Marshal(c.IDs)
		replay.Write(line)
		replay.WriteByte('\n')
	}
	replayFile := filepath.Join(dir, "replay.jsonl")
	require.NoError(t, os.WriteFile(replayFile, []byte(replay.String()), 0o644))
	cmd := exec.Command(chatserverBin, append([]string{"-addr", "127.0.0.1:0", "-replay", replayFile, "-prompts", s.promptLog}, flags...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		require.True(t, ok, "chatserver exited before it listened")
		s.BaseURL = "http://" + a + "/v1/"
	case <-time.After(time.Minute): // only ends a hung start
		require.Fail(t, "chatserver did not listen within a minute")
	}
	return s
}

// prompt is one line of the prompt log: the rendered prompt of a request.
type prompt struct {
	Text   string          `json:"text"`
	Tokens []harmony.Token `json:"tokens"`
}

func (s *server) prompts(t *testing.T) []prompt {
	t.Helper()
	data, err := os.ReadFile(s.promptLog)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	var ps []prompt
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		var p prompt
		require.NoError(t, json.Unmarshal([]byte(line), &p))
		ps = append(ps, p)
	}
	return ps
}

// usage is what a response to one request should report.
type usage struct{ Prompt, Completion, Reasoning int64 }

func (s *server) usage(t *testing.T, i int) usage {
	t.Helper()
	ps := s.prompts(t)
	u := usage{Completion: int64(len(s.Completions[i].IDs)), Reasoning: int64(s.Completions[i].ReasoningTokens), Prompt: -1}
	if i < len(ps) {
		u.Prompt = int64(len(ps[i].Tokens))
	}
	return u
}

// requests checks that exactly want requests reached the model.
func (s *server) requests(t *testing.T, want int) {
	t.Helper()
	assert.Equal(t, want, len(s.prompts(t)), "requests that reached the model")
}

// checkToolLoopPrompt checks the prompt of request i, which carried the
// tool result: the call, the result and the reasoning before the call.
func (s *server) checkToolLoopPrompt(t *testing.T, i int) {
	t.Helper()
	ps := s.prompts(t)
	if !assert.Less(t, i, len(ps), "prompt %d was not logged", i) {
		return
	}
	for what, sub := range map[string]string{
		"the tool call sent back":                  "to=functions.get_weather",
		"the tool result":                          "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>",
		"the tool result's text":                   `"temperature":18`,
		"the reasoning before the call, sent back": "<|channel|>analysis<|message|>" + callReasoning + "<|end|>",
	} {
		assert.Contains(t, ps[i].Text, sub, "prompt %d (%s)", i, what)
	}
}

// eq reports a difference unless got equals want (assert.Equal, with the
// two of one type, got first as the checks read).
func eq[T any](t *testing.T, got, want T, what string) {
	t.Helper()
	assert.Equal(t, want, got, what)
}

// The model's turns: harmony text after "<|start|>assistant".
const (
	reasoning = "The user asks what 2 + 2 is. Simple arithmetic: 4."
	answer    = "2 + 2 = 4."
	plain     = "<|channel|>analysis<|message|>" + reasoning + "<|end|><|start|>assistant<|channel|>final<|message|>" + answer + "<|return|>"

	callReasoning = "The user wants the weather in Paris. I should call get_weather."
	callArgs      = `{"city":"Paris","unit":"celsius"}`
	call          = "<|channel|>analysis<|message|>" + callReasoning + "<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>" + callArgs + "<|call|>"
	toolResult    = `{"temperature":18,"condition":"sunny"}`

	finalReasoning = "The tool says 18 degrees and sunny. Answer briefly."
	finalAnswer    = "It is 18 °C and sunny in Paris."
	afterTool      = "<|channel|>analysis<|message|>" + finalReasoning + "<|end|><|start|>assistant<|channel|>final<|message|>" + finalAnswer + "<|return|>"

	question        = "What is 2 + 2?"
	weatherQuestion = "What is the weather in Paris?"
	model           = "gpt-oss-120b"
)

var weatherParams = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city": map[string]any{"type": "string", "description": "The city"},
		"unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}},
	},
	"required":             []string{"city", "unit"},
	"additionalProperties": false,
}

// parseArgs parses tool-call arguments into a map for comparison.
func parseArgs(t *testing.T, args string, what string) map[string]any {
	t.Helper()
	var m map[string]any
	assert.NoError(t, json.Unmarshal([]byte(args), &m), "%s: not a JSON object: %q", what, args)
	return m
}

func wantArgs() map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(callArgs), &m)
	return m
}
