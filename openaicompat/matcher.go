package openaicompat

import (
	"bytes"
	"context"
	"fmt"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
)

// Matcher returns the constrain.Envelope of a completion for r: the token
// masks that let the model call only the functions r's tool_choice allows,
// with arguments that match their parameters, and answer in its
// response_format. The parameters are enforced whether the tool says
// "strict" or not (the model cannot write what the mask refuses; strict only
// says whether a client may count on it), and so is a json_schema response
// format; json_object allows any JSON value; text allows any text.
//
// The tools and tool_choice are checked as Conversation checks them (a
// *RequestError). A schema constrain cannot enforce exactly (unsupported,
// too complex, or with no valid instance) is an error wrapping its
// *constrain.SchemaError, naming the request parameter: a server then
// samples without a mask, or refuses the request. opts configures the
// compilation of every schema (nil: the defaults). The schemas share one
// constrain.Budget, opts.Budget or else one with the default limits, so
// that what compiling a request costs is bounded whatever its tools: the
// schema where the budget runs out is refused (ErrTooComplex). Each call
// compiles the schemas anew; a server that sees the same schemas often
// caches Grammars by their bytes. It is MatcherContext with
// context.Background().
func (r *ChatCompletionRequest) Matcher(enc *harmony.Encoding, opts *constrain.Options) (*constrain.Envelope, error) {
	return r.MatcherContext(context.Background(), enc, opts)
}

// MatcherContext is Matcher, stopping when ctx is done (the request's
// context, say): it then returns an error wrapping ctx.Err().
func (r *ChatCompletionRequest) MatcherContext(ctx context.Context, enc *harmony.Encoding, opts *constrain.Options) (*constrain.Envelope, error) {
	var typ string
	var schema []byte
	if f := r.ResponseFormat; f != nil {
		if _, err := outputFormat("response_format", "response format", f.Type, f.JSONSchema, "response_format.json_schema"); err != nil {
			return nil, err
		}
		typ = f.Type
		if f.JSONSchema != nil {
			schema = f.JSONSchema.Schema
		}
	}
	return envelope(ctx, enc, r.toolDefs(), r.ToolChoice, typ, schema, "response_format", opts)
}

// Matcher returns the constrain.Envelope of a completion for r, as
// ChatCompletionRequest.Matcher does, with r's text.format as its response
// format. It is MatcherContext with context.Background().
func (r *ResponsesRequest) Matcher(enc *harmony.Encoding, opts *constrain.Options) (*constrain.Envelope, error) {
	return r.MatcherContext(context.Background(), enc, opts)
}

// MatcherContext is Matcher, stopping when ctx is done: it then returns an
// error wrapping ctx.Err().
func (r *ResponsesRequest) MatcherContext(ctx context.Context, enc *harmony.Encoding, opts *constrain.Options) (*constrain.Envelope, error) {
	var typ string
	var schema []byte
	if r.Text != nil && r.Text.Format != nil {
		f := r.Text.Format
		js := &JSONSchema{Name: f.Name, Description: f.Description, Schema: f.Schema}
		if _, err := outputFormat("text.format", "text format", f.Type, js, "text.format"); err != nil {
			return nil, err
		}
		typ, schema = f.Type, f.Schema
	}
	defs, choice := r.toolDefs()
	return envelope(ctx, enc, defs, choice, typ, schema, "text.format", opts)
}

// envelope compiles the function tools' parameters and the response format
// (of type typ with schema, at the JSON path param, already checked) into
// an Envelope, all under one budget.
func envelope(ctx context.Context, enc *harmony.Encoding, defs []toolDef, choice *ToolChoice, typ string, schema []byte, param string, opts *constrain.Options) (*constrain.Envelope, error) {
	if _, err := functionTools(defs, choice); err != nil {
		return nil, err
	}
	var o constrain.Options
	if opts != nil {
		o = *opts
	}
	if o.Budget == nil {
		o.Budget = &constrain.Budget{}
	}
	var eo constrain.EnvelopeOptions
	switch {
	case choice == nil, choice.Mode == "", choice.Mode == "auto":
	case choice.Mode == "none":
		eo.ToolChoice = constrain.ToolChoiceNone
	case choice.Mode == "required":
		eo.ToolChoice = constrain.ToolChoiceRequired
	case choice.Mode == "function":
		eo.Function = choice.Function
	}
	if eo.ToolChoice != constrain.ToolChoiceNone {
		for i, d := range defs {
			t := constrain.EnvelopeTool{Name: d.fn.Name}
			if p := bytes.TrimSpace(d.fn.Parameters); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
				g, err := constrain.CompileJSONSchemaContext(ctx, enc, p, &o)
				if err != nil {
					return nil, fmt.Errorf("openaicompat: %sparameters (tools[%d]): %w", d.fnParam, i, err)
				}
				t.Params = g
			}
			eo.Tools = append(eo.Tools, t)
		}
	}
	if typ == "json_object" {
		schema = []byte("{}")
	}
	if typ == "json_object" || typ == "json_schema" {
		g, err := constrain.CompileJSONSchemaContext(ctx, enc, bytes.TrimSpace(schema), &o)
		if err != nil {
			return nil, fmt.Errorf("openaicompat: %s: %w", param, err)
		}
		eo.Response = g
	}
	return constrain.NewEnvelope(enc, &eo)
}
