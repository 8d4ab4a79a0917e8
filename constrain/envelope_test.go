package constrain

import (
	"errors"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city"],"additionalProperties":false}`

func weatherEnvelope(t *testing.T, opts EnvelopeOptions) *Envelope {
	t.Helper()
	enc := testenc.Encoding(t)
	g, err := CompileJSONSchema(enc, []byte(weatherSchema), nil)
	require.NoError(t, err)
	opts.Tools = append([]EnvelopeTool{{Name: "get_weather", Params: g}, {Name: "get_time"}}, opts.Tools...)
	e, err := NewEnvelope(enc, &opts)
	require.NoError(t, err)
	return e
}

// drive accepts the tokens of text (special tokens written out) and
// reports the index of the first refused one, or -1.
func drive(t *testing.T, e *Envelope, text string) int {
	t.Helper()
	enc := testenc.Encoding(t)
	for i, tok := range enc.EncodeWithSpecialTokens(text) {
		allowed := e.IsAllowed(tok)
		accepted := e.Accept(tok) == nil
		require.Equal(t, allowed, accepted, "%q: IsAllowed and Accept disagree on token %d", text, i)
		if e.n != i+1 {
			return i
		}
	}
	return -1
}

func TestEnvelopeCompletions(t *testing.T) {
	const (
		ana   = `<|channel|>analysis<|message|>Let me think.<|end|><|start|>assistant`
		pre   = `<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant`
		call  = `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>`
		time  = `<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>[1, "x"]<|call|>`
		final = `<|channel|>final<|message|>It is sunny.<|return|>`
	)
	tests := []struct {
		name string
		opts EnvelopeOptions
		text string
		ok   bool
	}{
		{"auto call", EnvelopeOptions{}, ana + pre + call, true},
		{"auto free params", EnvelopeOptions{}, time, true},
		{"auto final", EnvelopeOptions{}, ana + ana + final, true},
		{"bad args", EnvelopeOptions{}, `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"town": "Oslo"}<|call|>`, false},
		{"args cut short", EnvelopeOptions{}, `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"<|call|>`, false},
		{"unknown function", EnvelopeOptions{}, `<|channel|>commentary to=functions.get_news <|constrain|>json<|message|>{}<|call|>`, false},
		{"recipient before channel", EnvelopeOptions{}, ` to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>`, false},
		{"none final", EnvelopeOptions{ToolChoice: ToolChoiceNone}, ana + final, true},
		{"none call", EnvelopeOptions{ToolChoice: ToolChoiceNone}, call, false},
		{"none preamble", EnvelopeOptions{ToolChoice: ToolChoiceNone}, pre + final, false},
		{"required call", EnvelopeOptions{ToolChoice: ToolChoiceRequired}, ana + pre + call, true},
		{"required final", EnvelopeOptions{ToolChoice: ToolChoiceRequired}, final, false},
		{"named", EnvelopeOptions{Function: "get_time"}, time, true},
		{"named other", EnvelopeOptions{Function: "get_time"}, call, false},
		{"named final", EnvelopeOptions{Function: "get_time"}, final, false},
		{"analysis budget", EnvelopeOptions{MaxAnalysisTokens: 5}, ana + final, true},
		{"analysis over budget", EnvelopeOptions{MaxAnalysisTokens: 4}, ana + final, false},
		{"no second analysis", EnvelopeOptions{MaxAnalysisTokens: 5}, ana + ana + final, false},
		{"token after the end", EnvelopeOptions{}, final + `<|start|>`, false},
		{"end of final", EnvelopeOptions{}, `<|channel|>final<|message|>Hi<|end|>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := weatherEnvelope(t, tt.opts)
			bad := drive(t, e, tt.text)
			require.Equal(t, tt.ok, bad < 0 && e.CanEnd(), "accepted (first refused token %d)", bad)
		})
	}
}

func TestEnvelopeResponseGrammar(t *testing.T) {
	enc := testenc.Encoding(t)
	g, err := CompileJSONSchema(enc, []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), nil)
	require.NoError(t, err)
	for text, want := range map[string]bool{
		`<|channel|>final<|message|>{"n": 3}<|return|>`:   true,
		`<|channel|>final<|message|>{"n": 3.5}<|return|>`: false,
		`<|channel|>final<|message|>sunny<|return|>`:      false,
		`<|channel|>final<|message|>{"n": 3<|return|>`:    false,
	} {
		e, err := NewEnvelope(enc, &EnvelopeOptions{Response: g})
		require.NoError(t, err)
		assert.Equal(t, want, drive(t, e, text) < 0 && e.CanEnd(), "%s: accepted", text)
	}
}

// TestEnvelopeMaskMatchesIsAllowed checks, at every step of a completion,
// that FillMask sets exactly the tokens IsAllowed allows (over every id
// outside JSON, over the special tokens and a sample inside it), and that a
// refused token leaves the envelope unchanged.
func TestEnvelopeMaskMatchesIsAllowed(t *testing.T) {
	enc := testenc.Encoding(t)
	e := weatherEnvelope(t, EnvelopeOptions{MaxAnalysisTokens: 6})
	mask := make([]uint64, e.MaskWords())
	toks := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo","unit":"c"}<|call|>`)
	for i, tok := range toks {
		e.FillMask(mask)
		step := 1
		if e.phase == pJSON {
			step = 997
		}
		// Compared in Go first, the loops being over the vocabulary: an
		// assertion's arguments cost more than the check.
		for id := 0; id < enc.VocabSize(); id += step {
			if in := mask[id>>6]&(1<<(id&63)) != 0; in != e.IsAllowed(harmony.Token(id)) {
				require.Fail(t, "the mask and IsAllowed disagree", "token %d: on %d, the mask says %v", i, id, in)
			}
		}
		for id := harmony.FirstSpecialToken; id <= harmony.LastSpecialToken; id++ {
			if in := mask[id>>6]&(1<<(id&63)) != 0; in != e.IsAllowed(id) {
				require.Fail(t, "the mask and IsAllowed disagree", "token %d: on special %d, the mask says %v", i, id, in)
			}
			if !e.IsAllowed(id) {
				n := e.n
				if err := e.Accept(id); !errors.Is(err, ErrTokenNotAllowed) || e.n != n { // hot, as above
					require.ErrorIs(t, err, ErrTokenNotAllowed, "token %d: special %d", i, id)
					require.Equal(t, n, e.n, "token %d: special %d refused but moved the envelope", i, id)
				}
			}
		}
		require.NoError(t, e.Accept(tok), "token %d", i)
	}
	require.True(t, e.CanEnd(), "not at the end")
	e.FillMask(mask)
	for _, w := range mask {
		require.Zero(t, w, "a token allowed after the end")
	}
	e.Reset()
	require.True(t, drive(t, e, `<|channel|>final<|message|>ok<|return|>`) < 0 && e.CanEnd(), "Reset did not return to the start")
}

func TestEnvelopeErrors(t *testing.T) {
	enc := testenc.Encoding(t)
	tests := []struct {
		opts EnvelopeOptions
		want error
	}{
		{EnvelopeOptions{ToolChoice: ToolChoiceRequired}, ErrEmpty},
		{EnvelopeOptions{Function: "f"}, ErrInvalidEnvelope},
		{EnvelopeOptions{Tools: []EnvelopeTool{{Name: "f"}}, Function: "g"}, ErrInvalidEnvelope},
		{EnvelopeOptions{Tools: []EnvelopeTool{{Name: "f"}}, Function: "f", ToolChoice: ToolChoiceNone}, ErrInvalidEnvelope},
		{EnvelopeOptions{Tools: []EnvelopeTool{{Name: "f"}, {Name: "f"}}}, ErrInvalidEnvelope},
		{EnvelopeOptions{Tools: []EnvelopeTool{{Name: "a b"}}}, ErrInvalidEnvelope},
		{EnvelopeOptions{Tools: []EnvelopeTool{{Name: ""}}}, ErrInvalidEnvelope},
	}
	for _, tt := range tests {
		_, err := NewEnvelope(enc, &tt.opts)
		assert.ErrorIs(t, err, tt.want, "%+v", tt.opts)
	}
}
