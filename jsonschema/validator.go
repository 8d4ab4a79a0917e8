package jsonschema

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/cache"
	"github.com/go-harmony/harmony/internal/schemanorm"
)

// Defaults of [Options].
const (
	// DefaultCacheBytes is the memory the compiled-schema cache holds when
	// Options.CacheBytes is 0: 32 MiB.
	DefaultCacheBytes = 32 << 20
	// DefaultMaxEvaluations is the budget when Options.MaxEvaluations is 0:
	// 10,000 subschema evaluations per location of a value.
	DefaultMaxEvaluations = 10_000
)

// Options configures a [Validator]. The zero value gives the defaults.
type Options struct {
	// CacheBytes bounds the memory the cache of compiled schemas holds, as
	// estimated (see the package documentation): 0 means
	// [DefaultCacheBytes]; a negative value disables the cache.
	CacheBytes int64
	// MaxEvaluations is the budget a schema is checked against when it is
	// compiled: the most subschema evaluations validating one location of
	// a value may take (see the package documentation). 0 or less means
	// [DefaultMaxEvaluations].
	MaxEvaluations int
}

// Validator checks JSON Schemas and validates values against them. It owns a
// cache of compiled schemas and is safe for concurrent use.
type Validator struct {
	cache  *cache.Cache[*compiledSchema] // nil: no cache
	budget int64
}

// New returns a Validator configured by opts; nil means the defaults.
func New(opts *Options) *Validator {
	var o Options
	if opts != nil {
		o = *opts
	}
	v := &Validator{budget: int64(o.MaxEvaluations)}
	if v.budget <= 0 {
		v.budget = DefaultMaxEvaluations
	}
	switch {
	case o.CacheBytes == 0:
		v.cache = cache.New[*compiledSchema](DefaultCacheBytes)
	case o.CacheBytes > 0:
		v.cache = cache.New[*compiledSchema](o.CacheBytes)
	}
	return v
}

// compile compiles raw, or returns the cached outcome of an earlier
// compilation of the same bytes.
func (v *Validator) compile(raw []byte) *compiledSchema {
	if v.cache != nil {
		if c, ok := v.cache.GetBytes(raw); ok {
			return c
		}
	}
	c := compileUncached(raw, v.budget)
	if v.cache != nil {
		v.cache.Put(string(raw), c, c.size)
	}
	return c
}

// CheckDeveloperContent checks the parameters of every tool of d (namespaces
// in sorted key order, as rendered) and the schema of every response format.
// Each schema is compiled as a JSON Schema of the draft its "$schema" names
// (2020-12 when it names none; drafts 4, 6, 7, 2019-09 and 2020-12 are
// known), checked against that draft's meta-schema and against the budget. A
// tool without parameters (nil or JSON null) is skipped. Nothing is ever
// fetched: a reference to another document, or a "$schema" that is not a
// known draft, is an error.
//
// The result is nil or the errors.Join of one [*harmony.SchemaError] per
// invalid schema (the first problem found in it), so that every broken tool
// is reported at once; errors.As finds the first.
func (v *Validator) CheckDeveloperContent(d harmony.DeveloperContent) error {
	errs := v.checkTools(nil, d.Tools)
	for _, f := range d.ResponseFormats {
		if c := v.compile(f.Schema); c.err != nil {
			errs = append(errs, c.schemaError("response format "+f.Name))
		}
	}
	return errors.Join(errs...)
}

// CheckSystemContent checks the parameters of every tool of s, as
// [Validator.CheckDeveloperContent] does.
func (v *Validator) CheckSystemContent(s harmony.SystemContent) error {
	return errors.Join(v.checkTools(nil, s.Tools)...)
}

// CheckConversation checks the schemas of every system and developer message
// of c, in message order, as [Validator.CheckDeveloperContent] does, and
// joins all the errors. Content parts may be values or pointers; nil
// pointers are skipped.
func (v *Validator) CheckConversation(c harmony.Conversation) error {
	var errs []error
	for _, m := range c.Messages {
		for _, part := range m.Content {
			var err error
			switch p := part.(type) {
			case harmony.SystemContent:
				err = v.CheckSystemContent(p)
			case *harmony.SystemContent:
				if p != nil {
					err = v.CheckSystemContent(*p)
				}
			case harmony.DeveloperContent:
				err = v.CheckDeveloperContent(p)
			case *harmony.DeveloperContent:
				if p != nil {
					err = v.CheckDeveloperContent(*p)
				}
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (v *Validator) checkTools(errs []error, tools map[string]harmony.ToolNamespaceConfig) []error {
	keys := slices.Sorted(maps.Keys(tools))
	for _, key := range keys {
		ns := tools[key]
		name := ns.Name
		if name == "" {
			name = key
		}
		for _, t := range ns.Tools {
			if schemanorm.NoParameters(t.Parameters) {
				continue
			}
			if c := v.compile(t.Parameters); c.err != nil {
				errs = append(errs, c.schemaError(name+"."+t.Name))
			}
		}
	}
	return errs
}

// ValidateToolArguments validates arguments, the content of a parsed tool
// call (a message to recipient "functions.NAME"), against tool's parameter
// schema. It returns nil, a [*ValidationError] listing every violation
// (arguments that are not JSON make one violation at ""), or a
// [*harmony.SchemaError] when the schema itself is unusable: invalid, over
// the budget (errors.Is(err, [ErrSchemaTooComplex])), or too costly for
// arguments nested as deep as these (errors.Is(err, [ErrSchemaTooComplex])
// too). A tool without parameters accepts empty arguments and any JSON.
//
// Compiled schemas are cached by their bytes, so calling this for every
// request costs one compilation per distinct schema while the cache holds it.
func (v *Validator) ValidateToolArguments(tool harmony.ToolDescription, arguments string) error {
	subject := "arguments of tool " + tool.Name
	if schemanorm.NoParameters(tool.Parameters) {
		if strings.TrimSpace(arguments) == "" {
			return nil
		}
		if _, err := decodeInstance(arguments); err != nil {
			return invalidJSON(subject, err)
		}
		return nil
	}
	c := v.compile(tool.Parameters)
	if c.err != nil {
		return c.schemaError(tool.Name)
	}
	return c.validate(tool.Name, subject, arguments)
}

// ValidateResponse validates text, the content of a final answer, against
// the schema of format. Results are as for [Validator.ValidateToolArguments].
// The text must be the JSON document itself: a Markdown code fence around it
// is a violation.
func (v *Validator) ValidateResponse(format harmony.ResponseFormat, text string) error {
	owner := "response format " + format.Name
	c := v.compile(format.Schema)
	if c.err != nil {
		return c.schemaError(owner)
	}
	return c.validate(owner, "response for format "+format.Name, text)
}
