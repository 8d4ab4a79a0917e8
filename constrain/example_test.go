package constrain_test

import (
	"fmt"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
)

func ExampleCompileJSONSchema() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		panic(err)
	}
	schema := `{"type":"object","properties":{"unit":{"enum":["celsius","fahrenheit"]}},"required":["unit"],"additionalProperties":false}`
	g, err := constrain.CompileJSONSchema(enc, []byte(schema), &constrain.Options{Compact: true})
	if err != nil {
		panic(err)
	}
	m := g.NewMatcher()
	mask := make([]uint64, g.MaskWords())
	allowed := func(text string) bool {
		toks := enc.EncodeOrdinary(text)
		if len(toks) != 1 {
			panic("not one token")
		}
		m.FillMask(mask)
		return mask[toks[0]/64]&(1<<(toks[0]%64)) != 0
	}
	for _, tok := range enc.EncodeOrdinary(`{"unit":"`) {
		if err := m.Accept(tok); err != nil {
			panic(err)
		}
	}
	fmt.Println(allowed("cel"), allowed("kel"), m.CanEnd())
	// Output: true false false
}

// ExampleNewEnvelope follows a whole assistant completion that calls
// get_weather: at each step it fills the mask, takes the next token of a
// fixed target completion, checks the mask allows it and accepts it.
func ExampleNewEnvelope() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		panic(err)
	}
	params, err := constrain.CompileJSONSchema(enc,
		[]byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
		&constrain.Options{Compact: true})
	if err != nil {
		panic(err)
	}
	e, err := constrain.NewEnvelope(enc, &constrain.EnvelopeOptions{
		Tools:      []constrain.EnvelopeTool{{Name: "get_weather", Params: params}},
		ToolChoice: constrain.ToolChoiceRequired,
	})
	if err != nil {
		panic(err)
	}

	// The completion a sampler would pick, as harmony tokenizes it: each text
	// between special tokens encoded on its own.
	target, err := enc.Encode(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`,
		"<|channel|>", "<|constrain|>", "<|message|>", "<|call|>")
	if err != nil {
		panic(err)
	}

	mask := make([]uint64, e.MaskWords())
	var out []harmony.Token
	const maxSteps = 64 // a sampling loop always needs a length cap
	for step := 0; step < maxSteps && step < len(target) && !e.CanEnd(); step++ {
		e.FillMask(mask)
		tok := target[step]
		allowed := mask[tok/64]&(1<<(tok%64)) != 0
		piece, _ := enc.Decode([]harmony.Token{tok})
		fmt.Printf("%q %v\n", piece, allowed)
		if !allowed {
			break
		}
		if err := e.Accept(tok); err != nil {
			panic(err)
		}
		out = append(out, tok)
	}
	text, _ := enc.Decode(out)
	fmt.Println("CanEnd:", e.CanEnd())
	fmt.Println(text)

	// A different argument name is refused where it starts.
	e.Reset()
	bad, _ := enc.Encode(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"town"`,
		"<|channel|>", "<|constrain|>", "<|message|>")
	for i, tok := range bad {
		if !e.IsAllowed(tok) {
			piece, _ := enc.Decode([]harmony.Token{tok})
			fmt.Printf("token %d %q refused\n", i, piece)
			break
		}
		if err := e.Accept(tok); err != nil {
			panic(err)
		}
	}
	// Output:
	// "<|channel|>" true
	// "comment" true
	// "ary" true
	// " to" true
	// "=" true
	// "functions" true
	// ".get" true
	// "_weather" true
	// " " true
	// "<|constrain|>" true
	// "json" true
	// "<|message|>" true
	// "{\"" true
	// "city" true
	// "\":\"" true
	// "Os" true
	// "lo" true
	// "\"}" true
	// "<|call|>" true
	// CanEnd: true
	// <|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>
	// token 13 "town" refused
}
