package constrain

import (
	"errors"
	"testing"

	"github.com/go-harmony/harmony"
)

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city"],"additionalProperties":false}`

func weatherEnvelope(t *testing.T, opts EnvelopeOptions) *Envelope {
	t.Helper()
	enc := testEncoding(t)
	g, err := CompileJSONSchema(enc, []byte(weatherSchema), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.Tools = append([]EnvelopeTool{{Name: "get_weather", Params: g}, {Name: "get_time"}}, opts.Tools...)
	e, err := NewEnvelope(enc, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// drive accepts the tokens of text (special tokens written out) and
// reports the index of the first refused one, or -1.
func drive(t *testing.T, e *Envelope, text string) int {
	t.Helper()
	enc := testEncoding(t)
	for i, tok := range enc.EncodeWithSpecialTokens(text) {
		if e.IsAllowed(tok) != (e.Accept(tok) == nil) {
			t.Fatalf("%q: IsAllowed and Accept disagree on token %d", text, i)
		}
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
			if ok := bad < 0 && e.CanEnd(); ok != tt.ok {
				t.Fatalf("accepted %v (first refused token %d), want %v", ok, bad, tt.ok)
			}
		})
	}
}

func TestEnvelopeResponseGrammar(t *testing.T) {
	enc := testEncoding(t)
	g, err := CompileJSONSchema(enc, []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		`<|channel|>final<|message|>{"n": 3}<|return|>`:   true,
		`<|channel|>final<|message|>{"n": 3.5}<|return|>`: false,
		`<|channel|>final<|message|>sunny<|return|>`:      false,
		`<|channel|>final<|message|>{"n": 3<|return|>`:    false,
	} {
		e, err := NewEnvelope(enc, &EnvelopeOptions{Response: g})
		if err != nil {
			t.Fatal(err)
		}
		if ok := drive(t, e, text) < 0 && e.CanEnd(); ok != want {
			t.Errorf("%s: accepted %v, want %v", text, ok, want)
		}
	}
}

// TestEnvelopeMaskMatchesIsAllowed checks, at every step of a completion,
// that FillMask sets exactly the tokens IsAllowed allows (over every id
// outside JSON, over the special tokens and a sample inside it), and that a
// refused token leaves the envelope unchanged.
func TestEnvelopeMaskMatchesIsAllowed(t *testing.T) {
	enc := testEncoding(t)
	e := weatherEnvelope(t, EnvelopeOptions{MaxAnalysisTokens: 6})
	mask := make([]uint64, e.MaskWords())
	toks := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo","unit":"c"}<|call|>`)
	for i, tok := range toks {
		e.FillMask(mask)
		step := 1
		if e.phase == pJSON {
			step = 997
		}
		for id := 0; id < enc.VocabSize(); id += step {
			if in := mask[id>>6]&(1<<(id&63)) != 0; in != e.IsAllowed(harmony.Token(id)) {
				t.Fatalf("token %d: mask and IsAllowed disagree on %d", i, id)
			}
		}
		for id := harmony.FirstSpecialToken; id <= harmony.LastSpecialToken; id++ {
			if in := mask[id>>6]&(1<<(id&63)) != 0; in != e.IsAllowed(id) {
				t.Fatalf("token %d: mask and IsAllowed disagree on special %d", i, id)
			}
			if !e.IsAllowed(id) {
				n := e.n
				if err := e.Accept(id); !errors.Is(err, ErrTokenNotAllowed) || e.n != n {
					t.Fatalf("token %d: special %d refused with %v, n %d -> %d", i, id, err, n, e.n)
				}
			}
		}
		if err := e.Accept(tok); err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
	}
	if !e.CanEnd() {
		t.Fatal("not at the end")
	}
	e.FillMask(mask)
	for _, w := range mask {
		if w != 0 {
			t.Fatal("a token allowed after the end")
		}
	}
	e.Reset()
	if drive(t, e, `<|channel|>final<|message|>ok<|return|>`) >= 0 || !e.CanEnd() {
		t.Fatal("Reset did not return to the start")
	}
}

func TestEnvelopeErrors(t *testing.T) {
	enc := testEncoding(t)
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
		if _, err := NewEnvelope(enc, &tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("%+v: got %v, want %v", tt.opts, err, tt.want)
		}
	}
}
