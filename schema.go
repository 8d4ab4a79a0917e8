package harmony

// This file checks the JSON Schemas of tools and response formats with
// github.com/santhosh-tekuri/jsonschema/v5, validates tool-call arguments and
// final answers against them, and normalizes client-generated schemas for
// rendering (internal/schemanorm).

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ErrSchemaViolation is wrapped by every [*ValidationError]: a tool call's
// arguments or a final answer do not match their schema (or are not JSON).
var ErrSchemaViolation = errors.New("value does not match its schema")

// Violation is one way in which a value fails its schema.
type Violation struct {
	// InstanceLocation is the JSON pointer of the failing value inside the
	// validated document ("" for the document itself).
	InstanceLocation string
	// KeywordLocation is the JSON pointer, inside the schema, of the keyword
	// that failed, along the path validation took (so it may go through
	// "$ref"); "" when the value is not JSON at all.
	KeywordLocation string
	// Message describes the failure, such as "missing properties: 'city'".
	Message string
}

// String formats the violation as "LOCATION: MESSAGE", the location being
// "(root)" for the whole document.
func (v Violation) String() string {
	loc := v.InstanceLocation
	if loc == "" {
		loc = "(root)"
	}
	return loc + ": " + v.Message
}

// ValidationError reports a tool call's arguments or a final answer that do
// not match their schema. errors.Is(err, [ErrSchemaViolation]) reports true
// for it.
type ValidationError struct {
	// Subject says what was validated: "arguments of tool NAME" or
	// "response for format NAME".
	Subject string
	// Violations lists every failing check, sorted by instance location
	// (array indexes by value), then keyword location. A value that is not
	// JSON has exactly one violation, with empty locations and a message
	// starting "invalid JSON: ".
	Violations []Violation
}

// Error lists the violations on one line, starting with "harmony: ".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("harmony: ")
	b.WriteString(e.Subject)
	switch len(e.Violations) {
	case 0:
		b.WriteString(": schema violation")
	case 1:
		b.WriteString(": 1 schema violation: ")
	default:
		fmt.Fprintf(&b, ": %d schema violations: ", len(e.Violations))
	}
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Unwrap returns [ErrSchemaViolation].
func (e *ValidationError) Unwrap() error { return ErrSchemaViolation }

// ValidateSchemas checks the parameters of every tool (namespaces in sorted
// key order, as rendered) and the schema of every response format of d. Each
// schema is compiled as a JSON Schema of the draft its "$schema" names
// (2020-12 when it names none; drafts 4, 6, 7, 2019-09 and 2020-12 are
// known) and checked against that draft's meta-schema. A tool without
// parameters (nil or JSON null) is skipped. Nothing is ever fetched: a
// reference to another document, or a "$schema" that is not a known draft,
// is an error.
//
// The result is nil or the errors.Join of one [*SchemaError] per invalid
// schema (the first problem found in it), so that every broken tool is
// reported at once; errors.As finds the first.
func (d DeveloperContent) ValidateSchemas() error {
	errs := validateToolSchemas(nil, d.Tools)
	for _, f := range d.ResponseFormats {
		if c := compileSchema(f.Schema); c.err != nil {
			errs = append(errs, c.schemaError("response format "+f.Name))
		}
	}
	return errors.Join(errs...)
}

// ValidateSchemas checks the parameters of every tool of s, as
// [DeveloperContent.ValidateSchemas] does.
func (s SystemContent) ValidateSchemas() error {
	return errors.Join(validateToolSchemas(nil, s.Tools)...)
}

// ValidateConversationSchemas checks the schemas of every system and
// developer message of c, in message order, as
// [DeveloperContent.ValidateSchemas] does, and joins all the errors.
func ValidateConversationSchemas(c Conversation) error {
	var errs []error
	for _, m := range c.Messages {
		for _, part := range m.Content {
			var err error
			switch v := part.(type) {
			case SystemContent:
				err = v.ValidateSchemas()
			case *SystemContent:
				if v != nil {
					err = v.ValidateSchemas()
				}
			case DeveloperContent:
				err = v.ValidateSchemas()
			case *DeveloperContent:
				if v != nil {
					err = v.ValidateSchemas()
				}
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func validateToolSchemas(errs []error, tools map[string]ToolNamespaceConfig) []error {
	for _, key := range sortedKeys(nil, tools) {
		ns := tools[key]
		for _, t := range ns.Tools {
			if noParameters(t.Parameters) {
				continue
			}
			if c := compileSchema(t.Parameters); c.err != nil {
				errs = append(errs, c.schemaError(namespaceName(key, ns)+"."+t.Name))
			}
		}
	}
	return errs
}

// ValidateToolArguments validates arguments, the content of a parsed tool
// call (a message to recipient "functions.NAME"), against tool's parameter
// schema. It returns nil, a [*ValidationError] listing every violation
// (arguments that are not JSON make one violation at ""), or a
// [*SchemaError] when the schema itself is unusable. A tool without
// parameters accepts empty arguments and any JSON.
//
// Compiled schemas are cached by their bytes (the 256 most recently used,
// 8 MiB of schema text at most, none over 1 MiB), so calling this for every
// request costs one compilation per distinct schema. It is safe for
// concurrent use.
func ValidateToolArguments(tool ToolDescription, arguments string) error {
	subject := "arguments of tool " + tool.Name
	if noParameters(tool.Parameters) {
		if strings.TrimSpace(arguments) == "" {
			return nil
		}
		if _, err := decodeInstance(arguments); err != nil {
			return invalidJSON(subject, err)
		}
		return nil
	}
	c := compileSchema(tool.Parameters)
	if c.err != nil {
		return c.schemaError(tool.Name)
	}
	return c.validate(tool.Name, subject, arguments)
}

// ValidateResponse validates text, the content of a final answer, against
// the schema of format. Results are as for [ValidateToolArguments]. The text
// must be the JSON document itself: a Markdown code fence around it is a
// violation.
func ValidateResponse(format ResponseFormat, text string) error {
	owner := "response format " + format.Name
	c := compileSchema(format.Schema)
	if c.err != nil {
		return c.schemaError(owner)
	}
	return c.validate(owner, "response for format "+format.Name, text)
}

// Caches of compiled and normalized schemas, keyed by the schema's bytes:
// at most schemaCacheSize entries whose keys add up to at most
// schemaCacheBytes, none larger than maxCachedSchema.
const (
	schemaCacheSize  = 256
	schemaCacheBytes = 8 << 20
	maxCachedSchema  = 1 << 20
	inMemorySchemaID = "harmony:///schema.json"
)

var schemaCache = newLRU[*compiledSchema](schemaCacheSize, schemaCacheBytes)

// compiledSchema is the outcome of compiling one schema: the schema, or where
// and why it failed.
type compiledSchema struct {
	schema  *jsonschema.Schema
	pointer string
	err     error
}

func (c *compiledSchema) schemaError(owner string) *SchemaError {
	return &SchemaError{Tool: owner, Pointer: c.pointer, Err: c.err}
}

// compileSchema compiles raw, or returns the cached outcome of an earlier
// compilation of the same bytes.
func compileSchema(raw []byte) *compiledSchema {
	if c, ok := schemaCache.get(raw); ok {
		return c
	}
	c := compileUncached(raw)
	schemaCache.put(raw, c)
	return c
}

// errRemote is returned by the compiler's loader, which loads nothing.
type errRemote struct{ url string }

// Error names the URL that was not loaded.
func (e *errRemote) Error() string { return "cannot load " + e.url }

func compileUncached(raw []byte) (c *compiledSchema) {
	doc, err := ojson.Parse(raw)
	if err != nil {
		var se *ojson.SyntaxError
		errors.As(err, &se)
		return &compiledSchema{err: invalidJSONError(se)}
	}
	defer func() {
		// The compiler panics on a few schemas that its meta-schema lets
		// through (an RE2-invalid patternProperties key in draft 4, say).
		if r := recover(); r != nil {
			c = &compiledSchema{pointer: badPattern(doc), err: fmt.Errorf("the schema cannot be compiled: %v", r)}
		}
	}()
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	comp.LoadURL = func(u string) (io.ReadCloser, error) { return nil, &errRemote{u} }
	if err := comp.AddResource(inMemorySchemaID, bytes.NewReader(raw)); err != nil {
		return &compiledSchema{err: errors.New(cleanMessage(err))}
	}
	s, err := comp.Compile(inMemorySchemaID)
	if err != nil {
		ptr, cause := explainCompileError(doc, err)
		return &compiledSchema{pointer: ptr, err: cause}
	}
	return &compiledSchema{schema: s}
}

func invalidJSONError(se *ojson.SyntaxError) error {
	if se == nil {
		return errors.New("invalid JSON")
	}
	return fmt.Errorf("invalid JSON: %v at offset %d", se.Err, se.Offset)
}

// cleanMessage strips the validator's prefix and the in-memory URL from an
// error message.
func cleanMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "jsonschema "+inMemorySchemaID+" compilation failed: ")
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	msg = strings.TrimSuffix(msg, "#")
	msg = strings.TrimSuffix(msg, " in "+inMemorySchemaID)
	return strings.ReplaceAll(msg, inMemorySchemaID, "")
}

// explainCompileError turns a compilation error into the JSON pointer of the
// offending value and a description.
func explainCompileError(doc *ojson.Value, err error) (string, error) {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		// The schema fails its meta-schema: report the first leaf, as the
		// validator's own message does.
		leaf := ve
		for len(leaf.Causes) > 0 {
			leaf = leaf.Causes[0]
		}
		return unescapeLocation(leaf.InstanceLocation), errors.New(leaf.Message)
	}
	var remote *errRemote
	if errors.As(err, &remote) {
		if ptr, kw, val, ok := findReference(doc, func(kw, val string) bool { return refersTo(val, remote.url) }); ok {
			return ptr, fmt.Errorf("%s %q refers to another document, which is never fetched (no network access)", kw, val)
		}
		return "", fmt.Errorf("%s refers to another document, which is never fetched (no network access)", strings.ReplaceAll(remote.url, inMemorySchemaID, "#"))
	}
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return loopPointer(loop), errLoop
	}
	msg := cleanMessage(err)
	if strings.HasSuffix(msg, " not found") {
		if ptr, kw, val, ok := findReference(doc, func(kw, val string) bool { return !resolvesLocally(doc, val) }); ok {
			return ptr, fmt.Errorf("%s %q does not resolve", kw, val)
		}
	}
	switch {
	case strings.Contains(msg, "$schema") || strings.Contains(msg, "draft"):
		return "/$schema", errors.New(msg)
	case strings.Contains(msg, "vocab"):
		return "/$vocabulary", errors.New(msg)
	}
	return "", errors.New(msg)
}

var errLoop = errors.New("$ref loop that never reaches a keyword")

// loopPointer returns the pointer of the first "$ref" of the validator's
// report of an infinite loop ("URL#/properties/a/$ref/$ref"): up to there,
// the path it took is the document's.
func loopPointer(loop jsonschema.InfiniteLoopError) string {
	ptr := string(loop)
	if i := strings.IndexByte(ptr, '#'); i >= 0 {
		ptr = ptr[i+1:]
	}
	if i := strings.Index(ptr, "/$ref"); i >= 0 {
		ptr = ptr[:i+len("/$ref")]
	}
	return unescapeLocation(ptr)
}

var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}

// findReference returns the JSON pointer, keyword and value of the first
// reference of doc (or its root "$schema") that match accepts.
func findReference(doc *ojson.Value, match func(kw, val string) bool) (ptr, kw, val string, ok bool) {
	if v, found := doc.Get("$schema"); found {
		if s, isStr := v.AsString(); isStr && match("$schema", s) {
			return "/$schema", "$schema", s, true
		}
	}
	schemanorm.Walk(doc, func(p string, s *ojson.Value) {
		if ok {
			return
		}
		for _, k := range refKeywords {
			if v, found := s.Get(k); found {
				if str, isStr := v.AsString(); isStr && match(k, str) {
					ptr, kw, val, ok = p+"/"+k, k, str, true
					return
				}
			}
		}
	})
	return ptr, kw, val, ok
}

// refersTo reports whether the reference ref, resolved against the in-memory
// schema's URL, names the document at target.
func refersTo(ref, target string) bool {
	doc, _, _ := strings.Cut(ref, "#")
	if doc == "" {
		return false
	}
	if base, err := url.Parse(inMemorySchemaID); err == nil {
		if r, err := url.Parse(doc); err == nil && base.ResolveReference(r).String() == target {
			return true
		}
	}
	return strings.HasSuffix(target, doc)
}

// resolvesLocally reports whether ref is a local JSON pointer reference that
// resolves in doc; other references are reported as resolving.
func resolvesLocally(doc *ojson.Value, ref string) bool {
	if !strings.HasPrefix(ref, "#") {
		return true
	}
	ptr, ok := schemanorm.LocalPointer(ref)
	if !ok {
		return true // an anchor
	}
	_, ok = schemanorm.Resolve(doc, ptr)
	return ok
}

// badPattern returns the pointer of the first "pattern" or patternProperties
// key that Go's regexp package rejects.
func badPattern(doc *ojson.Value) string {
	found := ""
	schemanorm.Walk(doc, func(p string, s *ojson.Value) {
		if found != "" {
			return
		}
		if v, ok := s.Get("pattern"); ok {
			if str, ok := v.AsString(); ok {
				if _, err := regexp.Compile(str); err != nil {
					found = p + "/pattern"
					return
				}
			}
		}
		if pp, ok := s.Get("patternProperties"); ok && pp.Kind() == ojson.Object {
			for i := 0; i < pp.Len(); i++ {
				k, _ := pp.Member(i)
				if _, err := regexp.Compile(k); err != nil {
					found = p + "/patternProperties/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
					return
				}
			}
		}
	})
	return found
}

// unescapeLocation turns the validator's locations, whose tokens are also
// URL-path-escaped, into plain JSON pointers.
func unescapeLocation(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	toks := strings.Split(loc, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}

// decodeInstance parses text as the reference parser would (strict JSON,
// valid UTF-8, bounded nesting) and decodes it for the validator, numbers
// as json.Number so that none loses precision.
func decodeInstance(text string) (any, error) {
	if _, err := ojson.Parse([]byte(text)); err != nil {
		var se *ojson.SyntaxError
		errors.As(err, &se)
		return nil, invalidJSONError(se)
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return v, nil
}

func invalidJSON(subject string, err error) *ValidationError {
	return &ValidationError{Subject: subject, Violations: []Violation{{Message: err.Error()}}}
}

// validate checks text against the compiled schema.
func (c *compiledSchema) validate(owner, subject, text string) (err error) {
	v, err := decodeInstance(text)
	if err != nil {
		return invalidJSON(subject, err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = &SchemaError{Tool: owner, Err: fmt.Errorf("validation failed: %v", r)}
		}
	}()
	err = c.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		out := &ValidationError{Subject: subject}
		var leaves func(*jsonschema.ValidationError)
		leaves = func(e *jsonschema.ValidationError) {
			if len(e.Causes) == 0 {
				out.Violations = append(out.Violations, Violation{
					InstanceLocation: unescapeLocation(e.InstanceLocation),
					KeywordLocation:  unescapeLocation(e.KeywordLocation),
					Message:          e.Message,
				})
			}
			for _, cause := range e.Causes {
				leaves(cause)
			}
		}
		leaves(ve)
		// The validator walks properties in map order: sort.
		sort.SliceStable(out.Violations, func(i, j int) bool {
			a, b := out.Violations[i], out.Violations[j]
			if c := comparePointers(a.InstanceLocation, b.InstanceLocation); c != 0 {
				return c < 0
			}
			if c := comparePointers(a.KeywordLocation, b.KeywordLocation); c != 0 {
				return c < 0
			}
			return a.Message < b.Message
		})
		return out
	}
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return &SchemaError{Tool: owner, Pointer: loopPointer(loop), Err: errLoop}
	}
	return &SchemaError{Tool: owner, Err: errors.New(cleanMessage(err))}
}

// comparePointers orders JSON pointers token by token, array indexes (tokens
// of digits) by value, so that "/a" < "/a/2" < "/a/10" < "/b".
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		x, y := ta[i], tb[i]
		if x == y {
			continue
		}
		if isDigits(x) && isDigits(y) && len(x) != len(y) {
			return len(x) - len(y)
		}
		return strings.Compare(x, y)
	}
	return len(ta) - len(tb)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// lru is a small concurrency-safe least-recently-used cache keyed by bytes,
// bounded both in entries and in the total size of its keys. Keys larger
// than maxCachedSchema are not stored.
type lru[V any] struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	order    *list.List // of *lruEntry[V], most recent first
	items    map[string]*list.Element
}

type lruEntry[V any] struct {
	key string
	val V
}

func newLRU[V any](max, maxBytes int) *lru[V] {
	return &lru[V]{max: max, maxBytes: maxBytes, order: list.New(), items: make(map[string]*list.Element, max)}
}

func (c *lru[V]) get(key []byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[string(key)]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[V]) put(key []byte, val V) {
	if len(key) > maxCachedSchema {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[string(key)]; ok {
		e.Value.(*lruEntry[V]).val = val
		c.order.MoveToFront(e)
		return
	}
	c.items[string(key)] = c.order.PushFront(&lruEntry[V]{string(key), val})
	c.bytes += len(key)
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		last := c.order.Back()
		c.order.Remove(last)
		k := last.Value.(*lruEntry[V]).key
		delete(c.items, k)
		c.bytes -= len(k)
	}
}
