package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/require"
)

// fuzzTokens turns fuzz bytes into token ids, two bytes each, weighted
// towards what makes harmony structure: special tokens, header words,
// halves of UTF-8 characters, and now and then any id at all.
func fuzzTokens(enc *harmony.Encoding, data []byte) []harmony.Token {
	specials := []harmony.Token{harmony.TokenStart, harmony.TokenEnd, harmony.TokenMessage, harmony.TokenChannel,
		harmony.TokenConstrain, harmony.TokenReturn, harmony.TokenCall, 200013, 201088, 300000}
	var words []harmony.Token
	for _, w := range []string{"assistant", "user", "functions.f", "final", "analysis", "commentary", " to=functions.get",
		" to=", "python", "json", " ", "hello", "{\"", "\"}", "\n"} {
		words = append(words, enc.EncodeOrdinary(w)...)
	}
	words = append(words, 127, 102) // the two bytes of "é"
	var out []harmony.Token
	for i := 0; i+1 < len(data); i += 2 {
		a, b := data[i], data[i+1]
		switch a % 4 {
		case 0:
			out = append(out, specials[int(b)%len(specials)])
		case 3:
			out = append(out, harmony.Token(uint32(a)<<10|uint32(b)<<2))
		default:
			out = append(out, words[int(b)%len(words)])
		}
	}
	return out
}

// FuzzStreamConverters feeds random tokens to both stream converters in
// every mode: they must never panic, must fail exactly when the whole
// conversion fails, and must otherwise stream what the whole conversion
// returns. Every body, chunk and event, those of a stream failed halfway
// included, must validate against OpenAI's schemas (spec_test.go); that
// makes it two to three times slower.
func FuzzStreamConverters(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 3, 1, 4, 0, 2, 1, 11, 0, 5})
	f.Add([]byte{1, 6, 0, 2, 1, 11, 0, 1, 0, 0, 1, 0, 0, 3, 1, 5, 0, 2, 1, 14, 0, 6})
	f.Add([]byte{1, 3, 1, 7, 0, 2, 3, 255, 1, 15, 1, 16, 0, 9})
	f.Add([]byte("random text that becomes ordinary tokens"))
	enc := testenc.Encoding(f)
	// The inputs, run one at a time, share the skeletons validated, so that
	// most outputs cost a marshal and a scan, not a validation.
	run := &specRun{sp: mustSpec(f), seen: map[string]bool{}}
	echo := specEcho()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		toks := fuzzTokens(enc, data)
		for mode := 0; mode < 8; mode++ {
			lenient, expectStart, truncated := mode&1 != 0, mode&2 != 0, mode&4 != 0
			opts := func() *ResponseOptions {
				o := &ResponseOptions{Created: 1, IDGenerator: counter(), Strict: !lenient, ExpectStart: expectStart}
				if lenient {
					// Lenient, as a server is, and with what a server adds:
					// a usage chunk, reasoning under reasoning_content, the
					// request's parameters repeated.
					o.Model, o.StreamUsage, o.ReasoningField, o.Echo = "gpt-oss-20b", true, ReasoningFieldReasoningContent, echo
				}
				return o
			}
			s := Sampling{Truncated: truncated}
			if lenient {
				s.PromptTokens, s.CachedTokens = 40, 16
			}
			whole, wholeErr := ChatCompletionFromTokens(enc, toks, s, opts())
			chunks, streamErr := streamChat(enc, toks, s, opts())
			run.chat(t, whole, chunks)
			if wholeErr == nil {
				require.NoError(t, streamErr, "mode %d: the whole conversion succeeded, the stream", mode)
			} else {
				require.EqualError(t, streamErr, wholeErr.Error(), "mode %d: the stream's error, want the whole conversion's", mode)
			}
			if lenient && wholeErr != nil {
				// Lenient conversion recovers everything but a parser that
				// cannot be created.
				require.ErrorIs(t, wholeErr, ErrStreamFinished, "mode %d: lenient conversion failed", mode)
			}
			if wholeErr == nil {
				m, finish, err := foldChunks(chunks)
				require.NoError(t, err, "mode %d", mode)
				require.NoError(t, sameChatMessage(m, whole.Choices[0].Message), "mode %d", mode)
				require.Equal(t, whole.Choices[0].FinishReason, finish, "mode %d: finish", mode)
			}
			resp, wholeErr := ResponseFromTokens(enc, toks, s, opts())
			events, streamErr := streamResponses(enc, toks, s, opts())
			run.responses(t, resp, events)
			run.responses(t, nil, failStream(enc, toks[:len(toks)/2], opts()))
			if wholeErr == nil {
				require.NoError(t, streamErr, "mode %d: the whole conversion succeeded, the stream", mode)
				final, err := foldEvents(events)
				require.NoError(t, err, "mode %d", mode)
				require.Equal(t, marshalLine(resp), marshalLine(final), "mode %d: streamed, want the whole response", mode)
			} else {
				require.Error(t, streamErr, "mode %d: the whole conversion failed (%v), the stream", mode, wholeErr)
			}
		}
	})
}

// requestSeeds adds the request fixtures as seeds.
func requestSeeds(f *testing.F, api string) {
	_, fxs := requestFixtures(f)
	for _, fx := range fxs {
		if fx.API == api {
			f.Add(string(fx.Request))
		}
	}
}

// checkConverted checks the outcome of converting a fuzzed request: a
// *RequestError, or a conversation that renders, the same with and without
// harmony's own analysis dropping.
func checkConverted(t *testing.T, enc *harmony.Encoding, conv harmony.Conversation, err error) {
	if err != nil {
		var re *RequestError
		require.ErrorAs(t, err, &re, "bad error %T %v", err, err)
		require.True(t, strings.HasPrefix(err.Error(), "openaicompat: "), "bad error %T %v", err, err)
		require.NotEmpty(t, re.Code, "bad error %T %v", err, err)
		return
	}
	a, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err, "a converted conversation does not render")
	b, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll})
	require.NoError(t, err, "ReasoningKeepAll")
	require.True(t, equalTokens(a, b), "ReasoningKeepAll changes the rendering")
}

// FuzzChatRequest converts random JSON as a chat request.
func FuzzChatRequest(f *testing.F) {
	requestSeeds(f, "chat")
	f.Add(`{"messages":[{"role":"assistant","tool_calls":[{"id":"","function":{"name":"a b"}}]}]}`)
	// Schemas the prompt cannot carry: refused by Conversation, never a
	// failure to render.
	f.Add("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"properties\":{\"\xff\":{}}}}}]}")
	f.Add(`{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"a":1e999999}}}}`)
	enc := testenc.Encoding(f)
	f.Fuzz(func(t *testing.T, body string) {
		var req ChatCompletionRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		for _, opts := range []*RequestOptions{nil, {ImagePlaceholder: "[image]", BrowserTool: true, PythonTool: true, KeepReasoning: true}} {
			conv, err := req.Conversation(opts)
			if opts != nil && opts.KeepReasoning && err == nil {
				_, err = enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
				require.NoError(t, err)
				continue
			}
			checkConverted(t, enc, conv, err)
		}
	})
}

// FuzzResponsesRequest converts random JSON as a Responses request.
func FuzzResponsesRequest(f *testing.F) {
	requestSeeds(f, "responses")
	f.Add(`{"input":[{"type":"reasoning","content":[{"type":"input_image"}]}]}`)
	enc := testenc.Encoding(f)
	f.Fuzz(func(t *testing.T, body string) {
		var req ResponsesRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		conv, err := req.Conversation(&RequestOptions{ImagePlaceholder: "[image]"})
		checkConverted(t, enc, conv, err)
	})
}

// secret marks the text the user must never see as an answer: the
// reasoning, header words and text outside any valid header.
const secret = "SECRET"

// cotStream builds a completion from fuzz bytes out of pieces, well formed
// and not: answers whose content is public words, analysis messages, tool
// calls, tools' replies and user messages written by the model, and runs of
// junk (header words, special tokens other than <|message|>, unknown ids).
// Every piece of text that is reasoning, header or junk carries the secret
// marker; only the content of an assistant message on the final or
// commentary channel whose header is valid and has no recipient is public.
// A message may lack its stop token only when what follows starts a new
// message (<|start|> or <|channel|>), so that nothing but public words can
// ever be the content of a valid answer.
func cotStream(enc *harmony.Encoding, data []byte) []harmony.Token {
	words := func(s string) []harmony.Token { return enc.EncodeOrdinary(s) }
	sp := func(t ...harmony.Token) []harmony.Token { return t }
	secretText := [][]harmony.Token{words(" SECRET"), words("SECRET thinking"), words("SECRET\n"), words(` {"SECRET":1}`)}
	publicText := [][]harmony.Token{words(" fine"), words("Hello"), words("\n"), words(" world."), words(`{"a": 2}`)}
	headerJunk := [][]harmony.Token{words(" SECRET"), words(" to=SECRET"), words(" to=functions.SECRET"), words(" to=assistant"),
		words(" json"), sp(harmony.TokenConstrain), words(" to=functions.f"), words("SECRET"), words(" to=all"), words(" commentary"),
		sp(harmony.TokenChannel), words("analysis"), sp(harmony.TokenConstrain), words("SECRETjson")}
	junk := [][]harmony.Token{words("SECRET"), words(" SECRET text"), words("assistant"), words("user"), words("final"), words("analysis"),
		words(" to=functions.f"), words("functions.f"), sp(harmony.TokenStart), sp(harmony.TokenChannel), sp(harmony.TokenConstrain),
		sp(harmony.TokenEnd), sp(harmony.TokenReturn), sp(harmony.TokenCall), sp(200013), sp(201088), sp(300000), sp(127)}
	stops := []harmony.Token{harmony.TokenEnd, harmony.TokenReturn, harmony.TokenCall}

	var out []harmony.Token
	pick := func(list [][]harmony.Token, b byte) []harmony.Token { return list[int(b)%len(list)] }
	next := func(i int) byte {
		if i < len(data) {
			return data[i]
		}
		return 0
	}
	// open says the last message has no stop token yet: the next piece
	// must start a message, or one is added.
	open := false
	closeOpen := func(b byte, startsMessage bool) {
		if open && !startsMessage {
			out = append(out, stops[int(b)%len(stops)])
		}
		open = false
	}
	for i := 0; i+2 < len(data); i += 3 {
		op, a, b := data[i]%6, data[i+1], data[i+2]
		start := sp(harmony.TokenStart)
		start = append(start, words("assistant")...)
		if a&1 != 0 {
			start = nil // the model forgot <|start|>assistant
		}
		switch op {
		case 0, 1: // an answer (final) or a preamble (commentary), maybe with header junk
			closeOpen(b, true)
			out = append(out, start...)
			out = append(out, harmony.TokenChannel)
			if op == 0 {
				out = append(out, words("final")...)
			} else {
				out = append(out, words("commentary")...)
			}
			for k := 0; k < int(a>>1)%3; k++ {
				out = append(out, pick(headerJunk, next(i+3+k))...)
			}
			out = append(out, harmony.TokenMessage)
			for k := 0; k <= int(b)%4; k++ {
				out = append(out, pick(publicText, b>>2+byte(k))...)
			}
		case 2: // reasoning
			closeOpen(b, true)
			out = append(out, start...)
			out = append(out, harmony.TokenChannel)
			out = append(out, words("analysis")...)
			out = append(out, harmony.TokenMessage)
			for k := 0; k <= int(b)%4; k++ {
				out = append(out, pick(secretText, b>>2+byte(k))...)
			}
		case 3: // a tool call, and maybe the tool's reply written by the model
			closeOpen(b, true)
			out = append(out, start...)
			out = append(out, harmony.TokenChannel)
			out = append(out, words("commentary to=functions.f")...)
			out = append(out, harmony.TokenConstrain)
			out = append(out, words("json")...)
			out = append(out, harmony.TokenMessage)
			out = append(out, words(`{"x": 1}`)...)
			out = append(out, harmony.TokenCall)
			if b&1 != 0 {
				out = append(out, harmony.TokenStart)
				out = append(out, words("functions.f to=assistant")...)
				out = append(out, harmony.TokenChannel)
				out = append(out, words("commentary")...)
				out = append(out, harmony.TokenMessage)
				out = append(out, pick(secretText, b>>1)...)
			}
		case 4: // a user message written by the model
			closeOpen(b, true)
			out = append(out, harmony.TokenStart)
			out = append(out, words("user")...)
			out = append(out, harmony.TokenMessage)
			out = append(out, pick(secretText, b)...)
		case 5: // junk: anything but <|message|>
			closeOpen(b, false)
			for k := 0; k <= int(a)%6; k++ {
				out = append(out, pick(junk, b+byte(k)*7)...)
			}
			continue
		}
		if a&2 != 0 {
			out = append(out, stops[int(b)%len(stops)])
		} else {
			open = true
		}
	}
	closeOpen(0, false)
	return out
}

// FuzzContentNeverReasoning checks the invariant of lenient conversion:
// Chat content and Responses output_text, whole and streamed, never
// contain text from an analysis message, from a header, from a message of
// another role, or from text outside any valid header.
func FuzzContentNeverReasoning(f *testing.F) {
	f.Add([]byte{0, 0, 2, 2, 2, 1, 5, 3, 9, 0, 1, 7})
	f.Add([]byte{2, 1, 3, 0, 3, 0, 3, 1, 1, 4, 0, 0})
	f.Add([]byte{5, 5, 0, 5, 4, 200, 0, 2, 3, 5, 1, 1})
	f.Add([]byte{1, 7, 9, 3, 3, 3, 2, 0, 0, 0, 1, 2})
	enc := testenc.Encoding(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 900 {
			return
		}
		toks := cotStream(enc, data)
		for mode := 0; mode < 4; mode++ {
			expectStart, truncated := mode&1 != 0, mode&2 != 0
			opts := &ResponseOptions{Created: 1, IDGenerator: counter(), ExpectStart: expectStart}
			if expectStart {
				toks = append([]harmony.Token{harmony.TokenStart}, append(enc.EncodeOrdinary("assistant"), toks...)...)
			}
			s := Sampling{Truncated: truncated}
			chat, err := ChatCompletionFromTokens(enc, toks, s, opts)
			require.NoError(t, err, "mode %d", mode)
			if c := chat.Choices[0].Message.Content; c != nil {
				require.NotContains(t, c.Text, secret, "mode %d: content", mode)
			}
			chunks, err := streamChat(enc, toks, s, opts)
			require.NoError(t, err, "mode %d", mode)
			var streamed strings.Builder
			for _, c := range chunks {
				for _, ch := range c.Choices {
					streamed.WriteString(ch.Delta.Content)
				}
			}
			require.NotContains(t, streamed.String(), secret, "mode %d: streamed content", mode)
			resp, err := ResponseFromTokens(enc, toks, s, opts)
			require.NoError(t, err, "mode %d", mode)
			for _, it := range resp.Output {
				if it.Type != "message" || it.Content == nil {
					continue
				}
				for _, p := range it.Content.Parts {
					require.NotContains(t, p.Text, secret, "mode %d: output_text", mode)
				}
			}
			events, err := streamResponses(enc, toks, s, opts)
			require.NoError(t, err, "mode %d", mode)
			for _, e := range events {
				if e.Type == "response.output_text.delta" {
					require.NotContains(t, e.Delta, secret, "mode %d: output_text delta", mode)
				}
			}

			if expectStart {
				toks = toks[1+len(enc.EncodeOrdinary("assistant")):]
			}
		}
	})
}
