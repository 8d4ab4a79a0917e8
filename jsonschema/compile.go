package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"regexp"
	"strings"
	"unsafe"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// inMemorySchemaID is the URL under which a schema is given to the compiler.
const inMemorySchemaID = "harmony:///schema.json"

// compiledSchema is the outcome of compiling one schema: the schema, or where
// and why it failed.
type compiledSchema struct {
	schema  *js.Schema
	pointer string
	err     error
	docs    docMap // maps the compiler's locations back to the caller's schema
	// maxDepth is the deepest nesting of a value that validates within the
	// bounds (-1: any); depthAt is the subschema that passes them deeper,
	// and depthWhy says how.
	maxDepth int
	depthAt  string
	depthWhy string
	// size is the memory the outcome holds, as declared to the cache.
	size int64
	// analyzed and analysisSteps are the work of the analysis, for the
	// tests: the subschemas it covered and the steps it spent. Both are 0
	// when the schema was refused before the analysis.
	analyzed      int
	analysisSteps int64
}

func (c *compiledSchema) schemaError(owner string) *harmony.SchemaError {
	return &harmony.SchemaError{Tool: owner, Pointer: c.pointer, Err: c.err}
}

// errRemote is returned by the compiler's loader, which loads nothing.
type errRemote struct{ url string }

// Error names the URL that was not loaded.
func (e *errRemote) Error() string { return "cannot load " + e.url }

func refuseURL(u string) (io.ReadCloser, error) { return nil, &errRemote{u} }

// Bounds on the compiler's own work (see the package documentation).
const (
	// maxCompileSteps bounds the steps the compiler spends in its
	// quadratic parts: a draft 2020-12 document of n subschemas costs n²
	// steps, and each reference the compiler resolves by scanning the
	// subschemas of its document (an anchor, an "$id", a location that is
	// not a subschema, another document) costs n more.
	maxCompileSteps = 4_000_000
	// maxSubschemas bounds the subschemas of a schema, which the compiler
	// handles in linear time.
	maxSubschemas = 20_000
)

// draft2020Meta is the URL of the draft 2020-12 meta-schema, which the
// compiler knows without loading it.
const draft2020Meta = "https://json-schema.org/draft/2020-12/schema"

func newCompiler() *js.Compiler {
	comp := js.NewCompiler()
	comp.Draft = js.Draft2020
	comp.LoadURL = refuseURL
	return comp
}

// compileUncached parses, bounds, compiles and analyzes raw. The compiler
// is given raw itself, unless a reference in it has to be rewritten (see
// canonicalRefs).
func compileUncached(raw []byte, budget int64) (c *compiledSchema) {
	doc, err := ojson.ParseOptions{KeepNumberText: true}.Parse(raw)
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
	v := schemanorm.Decoded(doc)

	// The compiler's quadratic parts: refuse what they cannot do in bounded
	// time, and split the definitions off when that brings the cost down.
	whole := []splitDoc{{url: inMemorySchemaID, value: v}}
	wholeSteps, wholeAt, total := compileSteps(whole, isDraft2020Root(v))
	if total > maxSubschemas {
		return tooComplexCompile("", fmt.Sprintf("more than %d subschemas", maxSubschemas))
	}
	if c := checkRegexps(v); c != nil {
		return c
	}
	// References the compiler would read otherwise than RFC 6901 does are
	// rewritten in v (which leaves the steps as they are: compileSteps
	// reads references as RFC 6901 does); doc keeps them as the caller
	// wrote them, for the errors.
	changed, refusal := canonicalRefs(doc, v)
	if refusal != nil {
		return refusal
	}
	if wholeSteps <= maxCompileSteps {
		src, err := compilerSource(raw, v, changed)
		if err != nil {
			return &compiledSchema{err: errors.New(cleanMessage(err))}
		}
		return compileWhole(src, doc, budget)
	}
	plan, ok := planSplit(v)
	if !ok {
		return tooComplexCompile(wholeAt, compileStepsMessage(wholeSteps))
	}
	if steps, at, _ := compileSteps(plan.docs, true); steps > maxCompileSteps {
		return tooComplexCompile(at, compileStepsMessage(steps))
	}
	return compileSplit(raw, doc, plan, budget)
}

// compileSplit compiles the documents of plan. Each document is checked
// against the meta-schema as the compiler loads it; the definitions no
// reference leads to are loaded afterwards, for that check only. When the
// compiler finds a problem, the whole schema is checked against the
// meta-schema, so that an invalid schema is reported exactly as it would be
// unsplit.
func compileSplit(raw []byte, doc *ojson.Value, plan *splitPlan, budget int64) *compiledSchema {
	comp := newCompiler()
	docs := plan.apply()
	dm := docMap{prefixes: map[string]string{}}
	for _, d := range docs {
		b, err := json.Marshal(d.value)
		if err != nil {
			return &compiledSchema{err: errors.New(cleanMessage(err))}
		}
		if err := comp.AddResource(d.url, bytes.NewReader(b)); err != nil {
			return &compiledSchema{err: errors.New(cleanMessage(err))}
		}
		dm.prefixes[d.url] = d.prefix
	}
	s, err := comp.Compile(inMemorySchemaID)
	if err == nil {
		for _, d := range docs[1:] {
			var ve *js.ValidationError
			if _, e := comp.Compile(d.url); errors.As(e, &ve) {
				err = e
				break
			}
		}
	}
	if err != nil {
		if meta, e := comp.Compile(draft2020Meta); e == nil {
			if e := meta.Validate(schemanorm.Decoded(doc)); e != nil {
				err = e
			}
		}
		ptr, cause := explainCompileErrorIn(doc, err, dm)
		return &compiledSchema{pointer: ptr, err: cause}
	}
	return finish(s, nil, budget, dm)
}

// compileWhole compiles raw as one document.
func compileWhole(raw []byte, doc *ojson.Value, budget int64) *compiledSchema {
	comp := newCompiler()
	if err := comp.AddResource(inMemorySchemaID, bytes.NewReader(raw)); err != nil {
		return &compiledSchema{err: errors.New(cleanMessage(err))}
	}
	s, err := comp.Compile(inMemorySchemaID)
	if err != nil {
		ptr, cause := explainCompileError(doc, err)
		return &compiledSchema{pointer: ptr, err: cause}
	}
	return finish(s, dynamicAnchorTargets(comp, doc), budget, docMap{})
}

// finish analyzes a compiled schema and sizes it for the cache.
func finish(s *js.Schema, extra []*js.Schema, budget int64, dm docMap) *compiledSchema {
	g := analyzeGraph(s, extra, budget, dm)
	analyzed, steps := len(g.nodes), g.workLimit-g.work
	if g.refuse != nil {
		return &compiledSchema{pointer: g.refuse.pointer, err: g.refuse.err, analyzed: analyzed, analysisSteps: steps}
	}
	c := &compiledSchema{schema: s, docs: dm, maxDepth: -1, analyzed: analyzed, analysisSteps: steps}
	if g.overDepth >= 0 {
		c.maxDepth, c.depthAt, c.depthWhy = g.overDepth-1, g.overAt, g.overWhy
	}
	shareRegexps(g.nodes)
	c.size = estimateSize(g.nodes) + dm.size() + int64(unsafe.Sizeof(*c))
	return c
}

// dynamicAnchorTargets returns the compiled subschemas that hold a
// "$dynamicAnchor": a "$dynamicRef" may reach them although no field of a
// compiled schema leads there.
func dynamicAnchorTargets(comp *js.Compiler, doc *ojson.Value) []*js.Schema {
	var out []*js.Schema
	schemanorm.Walk(doc, func(ptr string, s *ojson.Value) {
		if _, ok := s.Get("$dynamicAnchor"); !ok {
			return
		}
		if t, err := comp.Compile(inMemorySchemaID + fragment(ptr)); err == nil {
			out = append(out, t)
		}
	})
	return out
}

func tooComplexCompile(ptr, why string) *compiledSchema {
	return &compiledSchema{pointer: ptr, err: fmt.Errorf("%w: %s", ErrSchemaTooComplex, why)}
}

func compileStepsMessage(steps int64) string {
	return fmt.Sprintf("compiling it would take about %d steps, more than %d", steps, maxCompileSteps)
}

// isDraft2020Root reports whether the compiler reads the decoded schema v as
// draft 2020-12 (the default when there is no "$schema").
func isDraft2020Root(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return true
	}
	s, has := m["$schema"]
	if !has {
		return true
	}
	str, ok := s.(string)
	return ok && isDraft2020(str)
}

// compileSteps estimates the compiler's quadratic work on docs: for each
// document of n subschemas, n² when it is draft 2020-12, plus n per
// reference resolved by a scan (when docs is a split, every reference). It
// returns the steps, the pointer of the costliest document and the number
// of subschemas.
func compileSteps(docs []splitDoc, draft2020 bool) (steps int64, at string, total int64) {
	var worst int64 = -1
	split := len(docs) > 1
	for _, d := range docs {
		var n, scans int64
		nestedID := false
		value := d.value
		if m, ok := value.(map[string]any); ok && split && d.prefix == "" {
			// The root of a split, without its definitions.
			m = maps.Clone(m)
			delete(m, "$defs")
			delete(m, "definitions")
			value = m
		}
		var refs []string
		schemanorm.WalkDecoded(value, func(at schemanorm.Pointer, v any) bool {
			if at != "" && !isSchema(v) {
				return true
			}
			n++
			m, ok := v.(map[string]any)
			if !ok {
				return true
			}
			if n > 1 {
				if _, has := m["$id"]; has {
					nestedID = true
				}
				if _, has := m["id"]; has {
					nestedID = true
				}
			}
			for _, kw := range refKeywords() {
				if r, has := m[kw]; has {
					if str, ok := r.(string); ok {
						refs = append(refs, str)
					}
				}
			}
			return true
		})
		for _, r := range refs {
			ptr, ok := schemanorm.LocalPointer(r)
			if split || nestedID || !ok || !isSchemaAt(value, ptr) {
				scans++
			}
		}
		s := n * scans
		if draft2020 {
			s += n * n
		}
		steps += s
		total += n
		if s > worst {
			worst, at = s, d.prefix
		}
	}
	return steps, at, total
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
	return explainCompileErrorIn(doc, err, docMap{})
}

// explainCompileErrorIn is explainCompileError for a schema compiled as the
// documents of dm.
func explainCompileErrorIn(doc *ojson.Value, err error, dm docMap) (string, error) {
	var ve *js.ValidationError
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
	var loop js.InfiniteLoopError
	if errors.As(err, &loop) {
		return loopPointer(loop, dm), errLoop
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
func loopPointer(loop js.InfiniteLoopError, dm docMap) string {
	loc := string(loop)
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		if j := strings.Index(loc[i:], "/$ref"); j >= 0 {
			loc = loc[:i+j+len("/$ref")]
		}
	}
	return dm.pointer(loc)
}

// refKeywords returns the keywords whose value is a reference.
func refKeywords() [3]string { return [...]string{"$ref", "$dynamicRef", "$recursiveRef"} }

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
		for _, k := range refKeywords() {
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
// resolves in doc (a pointer with a bad escape resolves nowhere); other
// references, anchors included, are reported as resolving.
func resolvesLocally(doc *ojson.Value, ref string) bool {
	if !strings.HasPrefix(ref, "#") {
		return true
	}
	ptr, err := schemanorm.ParseFragment(ref)
	if errors.Is(err, schemanorm.ErrNotFragment) {
		return true // an anchor
	}
	if err != nil {
		return false
	}
	_, ok := schemanorm.Resolve(doc, string(ptr))
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
					found = string(schemanorm.Pointer(p).Append("patternProperties", k))
					return
				}
			}
		}
	})
	return found
}

// unescapeLocation turns the validator's locations, whose tokens are also
// URL-path-escaped, into plain JSON pointers: it reads them as the URI
// fragment form of a pointer. A location that does not read as one is left
// as it is.
func unescapeLocation(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	p, err := schemanorm.ParseFragment("#" + loc)
	if err != nil {
		return loc
	}
	return string(p)
}
