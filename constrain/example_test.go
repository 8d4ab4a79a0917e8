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
