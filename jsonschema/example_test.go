package jsonschema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/jsonschema"
)

var weather = harmony.NewToolDescription("get_weather", "Gets the weather for a city.",
	json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`))

// ExampleValidator_ValidateToolArguments checks the arguments of two parsed
// calls to get_weather: the second names its violations by JSON pointer.
func ExampleValidator_ValidateToolArguments() {
	v := jsonschema.New(nil)
	fmt.Println(v.ValidateToolArguments(weather, `{"city":"Oslo","days":3}`))

	err := v.ValidateToolArguments(weather, `{"days":0}`)
	fmt.Println(err)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for _, viol := range ve.Violations {
			fmt.Printf("%q %q\n", viol.InstanceLocation, viol.KeywordLocation)
		}
	}
	fmt.Println(errors.Is(err, jsonschema.ErrSchemaViolation))
	// Output:
	// <nil>
	// harmony: arguments of tool get_weather: 2 schema violations: (root): missing properties: 'city'; /days: must be >= 1 but found 0
	// "" "/required"
	// "/days" "/properties/days/minimum"
	// true
}

// ExampleValidator_ValidateResponse checks final answers against a response
// format: the answer must be the JSON document itself.
func ExampleValidator_ValidateResponse() {
	v := jsonschema.New(nil)
	format := harmony.ResponseFormat{
		Name:   "verdict",
		Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`),
	}
	fmt.Println(v.ValidateResponse(format, `{"ok":true}`))
	fmt.Println(v.ValidateResponse(format, `{"ok":"yes"}`))
	fmt.Println(v.ValidateResponse(format, "```json\n{\"ok\":true}\n```"))
	// Output:
	// <nil>
	// harmony: response for format verdict: 1 schema violation: /ok: expected boolean, but got string
	// harmony: response for format verdict: 1 schema violation: (root): invalid JSON: expected a value at offset 0
}

// ExampleValidator_CheckConversation checks the schemas a conversation
// declares before it is rendered, so that a broken tool is reported to the
// caller rather than to the model.
func ExampleValidator_CheckConversation() {
	v := jsonschema.New(nil)
	broken := harmony.NewToolDescription("lookup", "Looks a word up.",
		json.RawMessage(`{"type":"object","properties":{"word":{"type":"text"}}}`))
	conv := harmony.NewConversation(
		harmony.NewDeveloperMessage(harmony.NewDeveloperContent().WithFunctionTools(weather, broken)),
		harmony.NewTextMessage(harmony.RoleUser, "Define 'fjord'."),
	)
	err := v.CheckConversation(conv)
	var se *harmony.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Tool, se.Pointer)
		fmt.Println(se)
	}
	fmt.Println(errors.Is(err, harmony.ErrInvalidSchema))
	// Output:
	// functions.lookup /properties/word/type
	// harmony: schema of functions.lookup is invalid at /properties/word/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"
	// true
}

// ExampleErrSchemaTooComplex shows a small schema whose validation would be
// exponential refused before any value is validated: 16 definitions, each an
// allOf of two references to the next, cost 2^16 evaluations per value.
func ExampleErrSchemaTooComplex() {
	var defs []string
	for i := 0; i < 16; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d16":{"type":"string"}`)
	schema := `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/d0"}`
	tool := harmony.NewToolDescription("hostile", "", json.RawMessage(schema))

	v := jsonschema.New(nil)
	err := v.ValidateToolArguments(tool, `"x"`)
	fmt.Println(errors.Is(err, jsonschema.ErrSchemaTooComplex), errors.Is(err, harmony.ErrInvalidSchema))
	fmt.Println(err)
	// Output:
	// true true
	// harmony: schema of hostile is invalid at /$defs/d4: schema too complex to validate: validating one value could take more than 10000 subschema evaluations
}
