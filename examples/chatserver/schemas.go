package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/utf8x"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/go-harmony/harmony/openaicompat"
)

// A request's JSON Schemas — its function tools' parameters and a
// json_schema response format — are checked as JSON Schemas with package
// jsonschema before the model sees them, as OpenAI checks them: one that is
// no valid schema (a "type" of "objekt", a reference to another document,
// one too costly to validate) is a 400 naming the parameter. openaicompat
// checks only that each is a JSON object the prompt can carry; it leaves
// schema validation out so that it does not link a validator.

// schemaCheck is one schema of a request: its owner's name and where it is.
type schemaCheck struct {
	param  string // "tools[0].function.parameters", "text.format.schema", …
	name   string // the function's or the format's name
	schema json.RawMessage
	format bool // a response format, not a function's parameters
}

// chatSchemas returns the schemas of a Chat Completions request.
func chatSchemas(req *openaicompat.ChatCompletionRequest) []schemaCheck {
	var out []schemaCheck
	for i, t := range req.Tools {
		if t.Type == "function" && t.Function != nil {
			out = append(out, schemaCheck{param: fmt.Sprintf("tools[%d].function.parameters", i), name: t.Function.Name, schema: t.Function.Parameters})
		}
	}
	if f := req.ResponseFormat; f != nil && f.Type == "json_schema" && f.JSONSchema != nil {
		out = append(out, schemaCheck{param: "response_format.json_schema.schema", name: f.JSONSchema.Name, schema: f.JSONSchema.Schema, format: true})
	}
	return out
}

// responsesSchemas returns the schemas of a Responses request.
func responsesSchemas(req *openaicompat.ResponsesRequest) []schemaCheck {
	var out []schemaCheck
	for i, t := range req.Tools {
		if t.Type == "function" {
			out = append(out, schemaCheck{param: fmt.Sprintf("tools[%d].parameters", i), name: t.Name, schema: t.Parameters})
		}
	}
	if req.Text != nil {
		if f := req.Text.Format; f != nil && f.Type == "json_schema" {
			out = append(out, schemaCheck{param: "text.format.schema", name: f.Name, schema: f.Schema, format: true})
		}
	}
	return out
}

// The codes of an invalid schema: OpenAI's for a function's parameters,
// and this server's for a response format.
const (
	codeInvalidParameters = "invalid_function_parameters"
	codeInvalidFormat     = "invalid_json_schema"
)

// checkSchemas checks each schema with v, in order, and returns the first
// that is invalid as a *openaicompat.RequestError (HTTP 400) naming its
// parameter, which wraps openaicompat.ErrInvalidTool or ErrInvalidRequest
// and the *harmony.SchemaError. Absent and null schemas (a function
// without parameters) are skipped; the request's Conversation has already
// refused those that are not JSON objects.
func checkSchemas(v *jsonschema.Validator, checks []schemaCheck) error {
	for _, c := range checks {
		s := bytes.TrimSpace(c.schema)
		if len(s) == 0 || bytes.Equal(s, []byte("null")) {
			continue
		}
		var err error
		if c.format {
			err = v.CheckDeveloperContent(harmony.DeveloperContent{ResponseFormats: []harmony.ResponseFormat{{Name: c.name, Schema: s}}})
		} else {
			err = v.CheckDeveloperContent(harmony.NewDeveloperContent().WithFunctionTools(harmony.NewToolDescription(c.name, "", s)))
		}
		var se *harmony.SchemaError
		if !errors.As(err, &se) {
			if err != nil {
				return err // not the schema's fault: a 500
			}
			continue
		}
		sentinel, code, what := openaicompat.ErrInvalidTool, codeInvalidParameters, "function"
		if c.format {
			sentinel, code, what = openaicompat.ErrInvalidRequest, codeInvalidFormat, "response format"
		}
		// The pointer holds the schema's keys, and the detail may quote
		// its values: both are clipped, as the name is.
		detail := utf8x.Clip(se.Err.Error(), 256)
		if se.Pointer != "" {
			detail = "at " + utf8x.Clip(se.Pointer, 128) + ": " + detail
		}
		return &openaicompat.RequestError{MessageIndex: -1, Param: c.param, Code: code,
			Err: &schemaError{msg: fmt.Sprintf("invalid schema for %s %q: %s", what, clip(c.name), detail), errs: []error{sentinel, se}}}
	}
	return nil
}

// schemaError says what is wrong with a schema, and wraps the sentinel of
// openaicompat and the *harmony.SchemaError.
type schemaError struct {
	msg  string
	errs []error
}

func (e *schemaError) Error() string   { return e.msg }
func (e *schemaError) Unwrap() []error { return e.errs }
