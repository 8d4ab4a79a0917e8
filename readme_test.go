package harmony_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Go blocks of README.md are quoted from this file: each one is the
// text between a "// README:begin NAME" line and the next "// README:end"
// line below, less its indentation. TestREADMEGoBlocks fails when a block
// of the README is not one of them, letter for letter, so every block
// compiles; the tests after it run the snippets on a stand-in model and
// check what they return.

// TestREADMEGoBlocks checks that every Go block of README.md is a snippet
// of this file, and every snippet is quoted.
func TestREADMEGoBlocks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	src, err := os.ReadFile("readme_test.go")
	require.NoError(t, err)
	snippets := readmeSnippets(t, string(src))
	quoted := map[string]bool{}
	for i, block := range goBlocks(string(readme)) {
		name, ok := "", false
		for n, s := range snippets {
			if s == block {
				name, ok = n, true
			}
		}
		if !assert.True(t, ok, "README.md's Go block %d is not a snippet of readme_test.go:\n%s", i+1, block) {
			continue
		}
		quoted[name] = true
	}
	for name := range snippets {
		assert.True(t, quoted[name], "snippet %s is not quoted in README.md", name)
	}
	assert.GreaterOrEqual(t, len(snippets), 8, "snippets")
}

// goBlocks returns the text of each ```go block of a Markdown text.
func goBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && line == "```go":
			in, cur = true, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// readmeSnippets returns the snippets of src by name, each less the
// indentation of its begin line.
func readmeSnippets(t *testing.T, src string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], "\t")
		name, ok := strings.CutPrefix(trimmed, "// README:begin ")
		if !ok {
			continue
		}
		indent := lines[i][:len(lines[i])-len(trimmed)]
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "// README:end"; i++ {
			if lines[i] != "" {
				require.True(t, strings.HasPrefix(lines[i], indent), "snippet %s: line %q is outdented", name, lines[i])
			}
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		require.NotContains(t, out, name, "two snippets named %s", name)
		out[name] = strings.Join(body, "\n")
	}
	return out
}

// standIn is the model of the snippets: it "samples" a fixed completion.
type standIn struct {
	completion []harmony.Token
	next       int // SampleMasked's position in completion
}

// Sample returns the completion, cut at limit tokens when limit > 0, and
// whether it was cut.
func (m *standIn) Sample(prompt []harmony.Token, limit int) ([]harmony.Token, bool) {
	if limit > 0 && limit < len(m.completion) {
		return m.completion[:limit], true
	}
	return m.completion, false
}

// Stream sends the completion one token at a time.
func (m *standIn) Stream(prompt []harmony.Token) <-chan harmony.Token {
	ch := make(chan harmony.Token, len(m.completion))
	for _, t := range m.completion {
		ch <- t
	}
	close(ch)
	return ch
}

// SampleMasked returns the completion's next token if the mask allows it,
// else the lowest token the mask allows.
func (m *standIn) SampleMasked(mask []uint64) harmony.Token {
	if m.next < len(m.completion) {
		t := m.completion[m.next]
		if mask[t/64]&(1<<(t%64)) != 0 {
			m.next++
			return t
		}
	}
	for i, w := range mask {
		for b := range 64 {
			if w&(1<<b) != 0 {
				return harmony.Token(i*64 + b)
			}
		}
	}
	return 0
}

func readmeQuickStart(model *standIn) ([]harmony.Message, error) {
	// README:begin quickstart
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss) // once; safe for concurrent use
	if err != nil {
		return nil, err
	}
	conv := harmony.NewConversation(
		harmony.NewSystemMessage(harmony.NewSystemContent().WithConversationStartDate("2025-06-28")),
		harmony.NewDeveloperMessage(harmony.NewDeveloperContent().
			WithInstructions("Answer briefly.").
			WithFunctionTools(harmony.NewToolDescription("get_weather", "Gets the weather.",
				json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)))),
		harmony.NewTextMessage(harmony.RoleUser, "Weather in Oslo?"),
	)
	prompt, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		return nil, err
	}

	// Your model samples after the prompt until it writes one of
	// enc.StopTokensForAssistantActions() (<|return|> or <|call|>) or
	// reaches its token limit.
	sampled, _ := model.Sample(prompt, 4096)

	// Recovery, as a server must: real model output is sometimes malformed.
	msgs, err := enc.ParseCompletion(sampled, harmony.RoleAssistant, &harmony.ParseOptions{Mode: harmony.ParseRecover})
	// README:end
	return msgs, err
}

func readmeStreaming(enc *harmony.Encoding, tokens <-chan harmony.Token, send func(channel, recipient, delta string)) ([]harmony.Message, error) {
	// README:begin streaming
	p, err := enc.NewStreamParser(harmony.RoleAssistant, &harmony.ParseOptions{Mode: harmony.ParseRecover})
	if err != nil {
		return nil, err
	}
	for tok := range tokens { // tokens <-chan harmony.Token, as your model samples them
		if err := p.Process(tok); err != nil {
			return nil, err // only when strict or lenient: recovery never fails
		}
		if delta, ok := p.LastContentDelta(); ok {
			send(p.CurrentChannel(), p.CurrentRecipient(), delta)
		}
	}
	if err := p.ProcessEOS(); err != nil {
		return nil, err
	}
	msgs := p.Messages()
	// README:end
	return msgs, nil
}

func readmeEvents(enc *harmony.Encoding, tokens <-chan harmony.Token) ([]string, error) {
	var log []string
	// README:begin events
	p, err := enc.NewStreamParser(harmony.RoleAssistant, &harmony.ParseOptions{Mode: harmony.ParseRecover})
	if err != nil {
		return nil, err
	}
	for tok := range tokens {
		_ = p.Process(tok) // never fails in recovery mode
		for _, ev := range p.Events() {
			switch ev.Kind {
			case harmony.EventHeader: // ev.Role, ev.Channel, ev.Recipient, ev.ContentType
				log = append(log, "header "+ev.Channel+" "+ev.Recipient)
			case harmony.EventDelta: // ev.Text
				log = append(log, "delta "+ev.Text)
			case harmony.EventMessageEnd: // p.Messages()[ev.Message]
				log = append(log, "end "+p.Messages()[ev.Message].Text())
			}
		}
	}
	_ = p.ProcessEOS()
	// README:end
	return log, nil
}

func readmeTraining(enc *harmony.Encoding, conv harmony.Conversation) ([]harmony.Token, []bool, error) {
	// README:begin training
	tokens, mask, err := enc.RenderTrainingExample(conv, nil) // mask[i]: learn tokens[i]
	// README:end
	return tokens, mask, err
}

func readmeConstrain(enc *harmony.Encoding, schema []byte, model *standIn, maxTokens int) ([]harmony.Token, bool, error) {
	// README:begin constrain
	g, err := constrain.CompileJSONSchema(enc, schema, nil) // immutable, safe to share
	if err != nil {
		return nil, false, err // a *constrain.SchemaError names what it cannot enforce
	}
	m := g.NewMatcher() // one per sequence; Reset to reuse
	mask := make([]uint64, g.MaskWords())
	var out []harmony.Token
	for len(out) < maxTokens && !m.CanEnd() {
		m.FillMask(mask)                // bit t set: token t may come next
		tok := model.SampleMasked(mask) // your sampler, drawing only from the mask
		if err := m.Accept(tok); err != nil {
			return nil, false, err // only for a token outside the mask
		}
		out = append(out, tok)
	}
	valid := m.CanEnd() // a complete valid instance
	// README:end
	return out, valid, nil
}

func readmeEnvelope(enc *harmony.Encoding, req *openaicompat.ChatCompletionRequest, model *standIn) ([]harmony.Token, bool, error) {
	// README:begin envelope
	env, err := req.Matcher(enc, nil) // *openaicompat.ChatCompletionRequest or ResponsesRequest
	if err != nil {
		return nil, false, err // a *constrain.SchemaError: sample this request without a mask
	}
	maxTokens := req.MaxOutputTokens()
	if maxTokens == 0 {
		maxTokens = 4096
	}
	mask := make([]uint64, env.MaskWords())
	var out []harmony.Token
	for len(out) < maxTokens && !env.CanEnd() { // CanEnd: <|call|> or <|return|> accepted
		env.FillMask(mask)              // special tokens included
		tok := model.SampleMasked(mask) // never a token outside the mask
		if err := env.Accept(tok); err != nil {
			return nil, false, err // cannot happen for a masked draw
		}
		out = append(out, tok)
	}
	truncated := !env.CanEnd() // the limit came first: openaicompat.Sampling{Truncated: true}
	// README:end
	return out, truncated, nil
}

func readmeBudget(enc *harmony.Encoding, conv harmony.Conversation) ([]harmony.Token, harmony.BudgetReport, error) {
	// README:begin budget
	prompt, report, err := enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant,
		harmony.Budget{MaxTokens: 131072, Reserve: 4096}, nil)
	// report.Kept, report.Elided: the messages rendered, and those elided;
	// report.DroppedTurns, report.Tokens
	// README:end
	return prompt, report, err
}

func readmeValidate(conv harmony.Conversation, tool harmony.ToolDescription, format harmony.ResponseFormat, msgs []harmony.Message) error {
	// README:begin validate
	v := jsonschema.New(nil) // once; safe for concurrent use; owns a 32 MiB cache
	if err := v.CheckConversation(conv); err != nil {
		return err // 400: a *harmony.SchemaError names the tool and the JSON pointer
	}
	for _, m := range msgs {
		var err error
		switch {
		case m.Recipient == "functions."+tool.Name:
			err = v.ValidateToolArguments(tool, m.Text()) // nil or a *jsonschema.ValidationError
		case m.Channel == harmony.ChannelFinal:
			err = v.ValidateResponse(format, m.Text())
		}
		if err != nil {
			return err
		}
	}
	// README:end
	return nil
}

// readmeServer is the README's request handler: the snippets
// server-request and server-response in a row.
func readmeServer(enc *harmony.Encoding, model *standIn) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// README:begin server-request
		fail := func(err error) {
			status, body := openaicompat.HTTPError(err) // 400 with param and code, 413, 500, …
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(body)
		}
		data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
		var req openaicompat.ChatCompletionRequest
		if err == nil {
			err = openaicompat.DecodeRequest(data, &req) // code "invalid_json", param the field at fault
		}
		if err != nil {
			fail(err)
			return
		}
		ropts := &openaicompat.RequestOptions{ConversationStartDate: "2025-06-28", ContextWindow: 131072}
		conv, err := req.Conversation(ropts)
		if err != nil {
			fail(err) // a *RequestError: 400
			return
		}
		prompt, err := req.RenderPrompt(enc, conv, ropts) // within the window, room kept for max_tokens
		if err != nil {
			fail(err) // 400 context_length_exceeded when it does not fit
			return
		}
		// README:end

		// README:begin server-response
		opts := req.ResponseOptions() // recovers malformed output; set opts.Strict to fail on it
		sampling := openaicompat.Sampling{PromptTokens: len(prompt)}
		if !req.Stream {
			var sampled []harmony.Token
			sampled, sampling.Truncated = model.Sample(prompt, req.MaxOutputTokens())
			resp, err := openaicompat.ChatCompletionFromTokens(enc, sampled, sampling, &opts)
			if err != nil {
				fail(err) // only with opts.Strict
				return
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(resp) // with usage
			return
		}
		stream, err := openaicompat.NewChatStreamConverter(enc, &opts)
		if err != nil {
			fail(err)
			return
		}
		sse := openaicompat.NewSSEWriter(w) // text/event-stream, flushed after each write
		sse.WriteTimeout = 30 * time.Second // per write: a client that stops reading is dropped
		for tok := range model.Stream(prompt) {
			chunks, err := stream.Process(tok) // role, then reasoning/content deltas, then tool-call deltas
			if sse.WriteChunks(chunks...) != nil {
				return // the client has gone, or stopped reading
			}
			if err != nil {
				sse.WriteChatError(err) // data: {"error": {...}} (HTTPError's body), no [DONE]
				return
			}
		}
		last, err := stream.Finish(sampling) // the finish_reason chunk, and usage if asked for
		if sse.WriteChunks(last...) != nil {
			return
		}
		if err != nil {
			sse.WriteChatError(err)
			return
		}
		sse.WriteDone() // data: [DONE]
		// README:end
	}
}

// A completion as gpt-oss writes it, with a slip servers must recover: the
// <|start|>assistant before the call is missing.
const readmeCompletion = `<|channel|>analysis<|message|>Need weather.<|end|>` +
	`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`

func readmeModel(t *testing.T, enc *harmony.Encoding, text string) *standIn {
	t.Helper()
	return &standIn{completion: enc.EncodeWithSpecialTokens(text)}
}

func TestREADMESnippets(t *testing.T) {
	enc := testenc.Encoding(t)
	model := readmeModel(t, enc, readmeCompletion)
	want := []harmony.Message{
		harmony.NewTextMessage(harmony.RoleAssistant, "Need weather.").WithChannel(harmony.ChannelAnalysis),
		harmony.NewTextMessage(harmony.RoleAssistant, `{"city":"Oslo"}`).WithChannel(harmony.ChannelCommentary).
			WithRecipient("functions.get_weather").WithContentType("<|constrain|>json"),
	}

	t.Run("quickstart", func(t *testing.T) {
		msgs, err := readmeQuickStart(model)
		require.NoError(t, err)
		assertMessages(t, want, msgs)
	})
	t.Run("streaming", func(t *testing.T) {
		var sent []string
		msgs, err := readmeStreaming(enc, model.Stream(nil), func(channel, recipient, delta string) {
			sent = append(sent, channel+"|"+recipient+"|"+delta)
		})
		require.NoError(t, err)
		assertMessages(t, want, msgs)
		got := strings.Join(sent, "")
		assert.True(t, strings.HasPrefix(got, "analysis||"), "deltas %q", sent)
		assert.Contains(t, got, `commentary|functions.get_weather|{"`, "deltas %q", sent)
	})
	t.Run("events", func(t *testing.T) {
		log, err := readmeEvents(enc, model.Stream(nil))
		require.NoError(t, err)
		require.NotEmpty(t, log, "events")
		assert.Equal(t, "header analysis ", log[0], "first event of %q", log)
		assert.Equal(t, `end {"city":"Oslo"}`, log[len(log)-1], "last event of %q", log)
	})
	t.Run("training", func(t *testing.T) {
		conv := harmony.NewConversation(harmony.NewTextMessage(harmony.RoleUser, "Hi"),
			harmony.NewTextMessage(harmony.RoleAssistant, "Hello!").WithChannel(harmony.ChannelFinal))
		toks, mask, err := readmeTraining(enc, conv)
		require.NoError(t, err)
		require.Len(t, mask, len(toks), "mask of %v", toks)
		assert.True(t, mask[len(mask)-1], "mask %v: the last token is not learned", mask)
		assert.False(t, mask[0], "mask %v: the first token is learned", mask)
	})
	t.Run("constrain", func(t *testing.T) {
		m := readmeModel(t, enc, `{"n":42}`)
		out, valid, err := readmeConstrain(enc, []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`), m, 64)
		text, _ := enc.Decode(out)
		assert.NoError(t, err)
		assert.True(t, valid, "not valid")
		assert.Equal(t, `{"n":42}`, text)
		// A sampler that does not end a string stops at the cap.
		m = readmeModel(t, enc, "")
		out, valid, err = readmeConstrain(enc, []byte(`{"type":"string"}`), m, 16)
		assert.NoError(t, err, "capped")
		assert.False(t, valid, "capped")
		assert.Len(t, out, 16, "capped")
	})
	t.Run("envelope", func(t *testing.T) {
		var req openaicompat.ChatCompletionRequest
		body := `{"model":"gpt-oss-120b","max_tokens":64,"tool_choice":"required","messages":[{"role":"user","content":"Weather in Oslo?"}],
			"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]}`
		require.NoError(t, openaicompat.DecodeRequest([]byte(body), &req))
		m := readmeModel(t, enc, `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`)
		out, truncated, err := readmeEnvelope(enc, &req, m)
		text, _ := enc.Decode(out)
		assert.NoError(t, err)
		assert.False(t, truncated, "truncated")
		assert.True(t, strings.HasSuffix(text, `{"city":"Oslo"}<|call|>`), "%q", text)
	})
	t.Run("budget", func(t *testing.T) {
		conv := harmony.NewConversation(harmony.NewTextMessage(harmony.RoleUser, "Hi"))
		prompt, report, err := readmeBudget(enc, conv)
		assert.NoError(t, err)
		assert.Equal(t, len(prompt), report.Tokens, "the report's tokens")
		assert.Len(t, report.Kept, 1, "kept")
	})
	t.Run("validate", func(t *testing.T) {
		tool := harmony.NewToolDescription("get_weather", "", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
		conv := harmony.NewConversation(harmony.NewDeveloperMessage(harmony.NewDeveloperContent().WithFunctionTools(tool)))
		format := harmony.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}
		assert.NoError(t, readmeValidate(conv, tool, format, want), "valid")
		bad := []harmony.Message{want[0], want[1].WithContent(harmony.TextContent{Text: `{"town":"Oslo"}`})}
		var ve *jsonschema.ValidationError
		assert.ErrorAs(t, readmeValidate(conv, tool, format, bad), &ve, "invalid")
	})
	t.Run("server", func(t *testing.T) {
		srv := httptest.NewServer(readmeServer(enc, model))
		defer srv.Close()
		post := func(body string) (int, string) {
			res, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
			require.NoError(t, err)
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b)
		}
		msgs := `"messages":[{"role":"user","content":"Weather in Oslo?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]`
		status, body := post(`{"model":"gpt-oss-120b",` + msgs + `}`)
		var resp openaicompat.ChatCompletionResponse
		require.NoError(t, json.Unmarshal([]byte(body), &resp), "%d %s", status, body)
		require.Equal(t, 200, status, body)
		c := resp.Choices[0]
		assert.Equal(t, openaicompat.FinishToolCalls, c.FinishReason, "response %s", body)
		assert.Equal(t, "Need weather.", c.Message.Reasoning, "response %s", body)
		if assert.Len(t, c.Message.ToolCalls, 1, "response %s", body) {
			assert.Equal(t, `{"city":"Oslo"}`, c.Message.ToolCalls[0].Function.Arguments, "response %s", body)
		}
		if assert.NotNil(t, resp.Usage, "response %s", body) {
			assert.Equal(t, len(model.completion), resp.Usage.CompletionTokens, "response %s", body)
			assert.NotZero(t, resp.Usage.PromptTokens, "response %s", body)
		}
		status, body = post(`{"model":"gpt-oss-120b","stream":true,` + msgs + `}`)
		assert.Equal(t, 200, status, "stream %s", body)
		assert.Contains(t, body, `"finish_reason":"tool_calls"`, "stream")
		assert.True(t, strings.HasSuffix(body, "data: [DONE]\n\n"), "stream %s", body)
		status, body = post(`{"model":"gpt-oss-120b","messages":[{"role":"tool","tool_call_id":"call_9","content":"x"}]}`)
		assert.Equal(t, 400, status, "bad request %s", body)
		assert.Contains(t, body, `"code":"unknown_tool_call_id"`, "bad request")
	})
}

func assertMessages(t *testing.T, want, got []harmony.Message) {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	assert.Equal(t, string(w), string(g), "messages as JSON")
}
