package constrain

// This file compiles a decoded JSON Schema into nodes. Every keyword is
// either enforced exactly, ignored because it is an annotation (title,
// description, default, examples, unknown keywords...), or refused with
// ErrUnsupported naming its JSON pointer.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/schemanorm"
)

// compiler holds one compilation: the decoded document ($ref resolves in
// it), the nodes and specs made so far (their ids index these slices), the
// memo tables that make sharing explicit (byPtr gives each subschema one
// node, which is what closes a recursive $ref into a cycle; inter holds
// the intersections by pair, lengths and numbers the automata by their
// keywords) and the meter charging the work.
type compiler struct {
	root     any
	opts     Options
	m        *meter
	lengths  map[[2]int]*dfa // lengthDFA by bounds
	numbers  map[string]*dfa // numberNode by keywords
	depth    int             // subschemas being compiled, one inside the other
	draftOld bool            // draft 4, 6 or 7: $ref overrides its siblings
	draft4   bool            // exclusiveMinimum/Maximum are booleans
	byPtr    map[string]*node
	inter    map[[2]*node]*node
	nodes    []*node
	objs     []*objSpec
	arrs     []*arrSpec
	any      *node
}

// Bytes charged for each node, object and array: the struct, its share of
// the compiler's maps and of the emptiness analysis.
const (
	nodeCost = 256
	objCost  = 256
	arrCost  = 128
)

// newNode makes a node, charged to the budget: a budget it spends fails
// the next charge that returns its error (the meter's error sticks).
func (c *compiler) newNode() *node {
	c.m.charge(0, nodeCost)
	n := &node{strMax: -1, ptr: c.m.atOrRoot(), id: int32(len(c.nodes))}
	c.nodes = append(c.nodes, n)
	return n
}

// newArr makes an array spec, charged as newNode is.
func (c *compiler) newArr(a *arrSpec) *arrSpec {
	c.m.charge(0, arrCost)
	a.id = int32(len(c.arrs))
	c.arrs = append(c.arrs, a)
	return a
}

// lengthDFA is lengthDFA, once per pair of bounds.
func (c *compiler) lengthDFA(min, max int) (*dfa, error) {
	k := [2]int{min, max}
	if d, ok := c.lengths[k]; ok {
		return d, nil
	}
	d, err := lengthDFA(c.m, min, max)
	if err != nil {
		return nil, err
	}
	c.lengths[k] = d
	return d, nil
}

// maxDepth bounds how deep subschemas nest, references followed: the
// compiler recurses at each level. MaskBench's deepest nest 29.
const maxDepth = 512

// annotations are keywords that never restrict a value.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"$schema": true, "$id": true, "id": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"$defs": true, "definitions": true, "contentMediaType": true, "contentEncoding": true,
	"contentSchema": true, "$anchor": true, "$vocabulary": true,
}

// handled are the keywords compileLocal enforces.
var handled = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "prefixItems": true, "additionalItems": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "pattern": true,
	"format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "anyOf": true, "oneOf": true, "allOf": true,
	"$ref": true, "minProperties": true, "maxProperties": true, "uniqueItems": true,
}

// refused are keywords that restrict values in ways not done here.
var refused = map[string]bool{
	"not": true, "if": true, "then": true, "else": true, "dependencies": true,
	"dependentRequired": true, "dependentSchemas": true, "propertyNames": true,
	"patternProperties": true, "contains": true, "minContains": true, "maxContains": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "$dynamicRef": true,
	"$recursiveRef": true,
}

// ptrJoin returns the JSON pointer ptr followed by the reference tokens
// toks.
func ptrJoin(ptr string, toks ...string) string {
	return string(schemanorm.Pointer(ptr).Append(toks...))
}

// resolve returns the pointer of the value a local reference ("#/a/b")
// names, and the value.
func (c *compiler) resolve(ptr, ref string) (string, any, error) {
	if ref == "#" || ref == "" {
		return "", c.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return "", nil, unsupported(ptr, "$ref %q (only local JSON pointers are followed)", ref)
	}
	target, err := schemanorm.ParseFragment(ref)
	if err != nil {
		return "", nil, invalid(ptr, "$ref %q: %v", ref, err)
	}
	v, ok := schemanorm.ResolveDecoded(c.root, target)
	if !ok {
		return "", nil, invalid(ptr, "$ref %q does not resolve", ref)
	}
	return string(target), v, nil
}

// schema returns the node of the subschema v at ptr, memoized by pointer.
func (c *compiler) schema(ptr string, v any) (*node, error) {
	if n, ok := c.byPtr[ptr]; ok {
		return n, nil
	}
	// The work of a subschema, its pointer and its entry in byPtr.
	if err := c.m.charge(subschemaStates, len(ptr)+64); err != nil {
		return nil, err
	}
	if c.depth >= maxDepth {
		return nil, tooComplex(ptr, "subschemas nested more than %d deep", maxDepth)
	}
	outer := c.m.at
	c.m.at = ptr
	c.depth++
	defer func() { c.m.at, c.depth = outer, c.depth-1 }()
	switch x := v.(type) {
	case bool:
		if x {
			return c.anyNode(), nil
		}
		n := c.newNode()
		c.byPtr[ptr] = n
		return n, nil
	case map[string]any:
		if len(c.byPtr) > 50000 {
			return nil, tooComplex(ptr, "more than 50000 subschemas")
		}
		n := c.newNode()
		n.filling = true
		c.byPtr[ptr] = n
		res, err := c.compileMap(ptr, x)
		if err != nil {
			return nil, err
		}
		res = res.deref()
		if res == n {
			return nil, invalid(ptr, "a $ref cycle that never reaches a schema")
		}
		if res.filling {
			// A reference to a node still being compiled (a cycle): forward
			// to it; resolveForwards fixes every pointer once all is built.
			n.fwd = res
			n.filling = false
			return res, nil
		}
		id := n.id
		*n = *res
		n.id, n.filling = id, false
		return n, nil
	}
	return nil, invalid(ptr, "a schema must be an object or a boolean")
}

// compileMap compiles the schema object m at ptr. With $ref, it is the
// node of the target, intersected with m's other keywords in 2019-09 and
// later; in drafts 4 to 7 those siblings are ignored, and beside
// annotations alone the target is taken as it is, without an intersection,
// which keeps a recursive reference (one intersect refuses) usable there.
func (c *compiler) compileMap(ptr string, m map[string]any) (*node, error) {
	if ref, ok := m["$ref"]; ok {
		rs, ok := ref.(string)
		if !ok {
			return nil, invalid(ptr, "$ref is not a string")
		}
		tptr, tv, err := c.resolve(ptr, rs)
		if err != nil {
			return nil, err
		}
		target, err := c.schema(tptr, tv)
		if err != nil {
			return nil, err
		}
		if c.draftOld || onlyAnnotations(m) {
			return target, nil
		}
		rest, err := c.compileNoRef(ptr, m)
		if err != nil {
			return nil, err
		}
		return c.intersect(ptr, target, rest)
	}
	return c.compileNoRef(ptr, m)
}

// compileNoRef compiles m's keywords other than $ref: it refuses the
// keywords of refused (in name order, so that the error names the same one
// every time), compiles the others (compileLocal), and intersects that with
// each allOf branch and with the union of the anyOf and of the oneOf
// branches. oneOf is taken as anyOf only when disjoint proves its branches
// pairwise exclusive, so that at most one can match.
func (c *compiler) compileNoRef(ptr string, m map[string]any) (*node, error) {
	// Sized: slices.Sorted(maps.Keys(m)) would grow its slice from nil, about
	// 2% more allocations per compile (BenchmarkCompile 1309 → 1340).
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	for _, k := range keys {
		if refused[k] {
			if k == "propertyNames" && isTrivialPropertyNames(m[k]) {
				continue
			}
			if k == "patternProperties" {
				if pp, ok := m[k].(map[string]any); ok && len(pp) == 0 {
					continue
				}
			}
			return nil, unsupported(ptrJoin(ptr, k), "keyword %q", k)
		}
	}
	n, err := c.compileLocal(ptr, m)
	if err != nil {
		return nil, err
	}
	if v, ok := m["allOf"]; ok {
		subs, ok := v.([]any)
		if !ok {
			return nil, invalid(ptrJoin(ptr, "allOf"), "not an array")
		}
		for i, s := range subs {
			sn, err := c.schema(ptrJoin(ptr, "allOf", strconv.Itoa(i)), s)
			if err != nil {
				return nil, err
			}
			if n, err = c.intersect(ptr, n, sn); err != nil {
				return nil, err
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		v, ok := m[kw]
		if !ok {
			continue
		}
		subs, ok := v.([]any)
		if !ok || len(subs) == 0 {
			return nil, invalid(ptrJoin(ptr, kw), "not a non-empty array")
		}
		var alts []*node
		for i, s := range subs {
			sn, err := c.schema(ptrJoin(ptr, kw, strconv.Itoa(i)), s)
			if err != nil {
				return nil, err
			}
			alts = append(alts, sn)
		}
		if kw == "oneOf" {
			for i := range alts {
				c.m.at = ptrJoin(ptr, kw, strconv.Itoa(i)) // the budget names the branch
				for j := i + 1; j < len(alts); j++ {
					if !c.disjoint(alts[i], alts[j], 4) {
						return nil, unsupported(ptrJoin(ptr, kw), "oneOf branches %d and %d may overlap (oneOf is only taken as anyOf when its branches are provably disjoint)", i, j)
					}
				}
			}
		}
		c.m.at = ptr
		u, err := c.union(ptr, kw, alts)
		if err != nil {
			return nil, err
		}
		if n, err = c.intersect(ptr, n, u); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// onlyAnnotations reports whether m has no keyword but $ref and
// annotations (unknown keywords are annotations too).
func onlyAnnotations(m map[string]any) bool {
	for k := range m {
		if k != "$ref" && (handled[k] || refused[k]) {
			return false
		}
	}
	return true
}

// isTrivialPropertyNames reports whether propertyNames v allows every key:
// true, or a schema of annotations and type string (keys are strings).
func isTrivialPropertyNames(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		for k, vv := range x {
			if annotations[k] {
				continue
			}
			if k == "type" && vv == "string" {
				continue
			}
			return false
		}
		return true
	}
	return false
}

const (
	tNull = 1 << iota
	tBool
	tInteger
	tNumber
	tString
	tObject
	tArray
	tAll = tNull | tBool | tInteger | tNumber | tString | tObject | tArray
)

var typeBits = map[string]int{
	"null": tNull, "boolean": tBool, "integer": tInteger, "number": tNumber | tInteger,
	"string": tString, "object": tObject, "array": tArray,
}

// compileLocal compiles the keywords of m other than $ref, allOf, anyOf and
// oneOf.
func (c *compiler) compileLocal(ptr string, m map[string]any) (*node, error) {
	types := tAll
	if t, ok := m["type"]; ok {
		types = 0
		switch x := t.(type) {
		case string:
			b, ok := typeBits[x]
			if !ok {
				return nil, invalid(ptrJoin(ptr, "type"), "unknown type %q", x)
			}
			types = b
		case []any:
			for _, e := range x {
				s, _ := e.(string)
				b, ok := typeBits[s]
				if !ok {
					return nil, invalid(ptrJoin(ptr, "type"), "unknown type %v", e)
				}
				types |= b
			}
		default:
			return nil, invalid(ptrJoin(ptr, "type"), "not a string or an array")
		}
	}
	n := c.newNode()
	n.null = types&tNull != 0
	n.tru = types&tBool != 0
	n.fal = n.tru
	var err error
	if types&(tInteger|tNumber) != 0 {
		if n.num, err = c.numberNode(ptr, m, types&tNumber == 0); err != nil {
			return nil, err
		}
	}
	if types&tString != 0 {
		if err = c.stringNode(ptr, m, n); err != nil {
			return nil, err
		}
	}
	if types&tObject != 0 {
		o, err := c.objectSpec(ptr, m)
		if err != nil {
			return nil, err
		}
		n.objs = []*objSpec{o}
	}
	if types&tArray != 0 {
		a, err := c.arraySpec(ptr, m)
		if err != nil {
			return nil, err
		}
		n.arrs = []*arrSpec{a}
	}
	var values []any
	if v, ok := m["enum"]; ok {
		vs, ok := v.([]any)
		if !ok {
			return nil, invalid(ptrJoin(ptr, "enum"), "not an array")
		}
		values = vs
	}
	if v, ok := m["const"]; ok {
		if _, had := m["enum"]; had {
			return nil, unsupported(ptr, "both enum and const")
		}
		values = []any{v}
	}
	if values != nil || m["enum"] != nil {
		kw := "enum"
		if _, ok := m["const"]; ok {
			kw = "const"
		}
		c.m.at = ptrJoin(ptr, kw)
		en, err := c.enumNode(ptr, values)
		c.m.at = ptr
		if err != nil {
			return nil, err
		}
		return c.intersect(ptr, n, en)
	}
	return n, nil
}

// number returns the exact value of a schema number (a json.Number, as
// decodeSchema leaves them), false for anything else: bounds and enum
// values are compared as decimals, never through a float64.
func number(v any) (*big.Rat, bool) {
	jn, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	if i, err := strconv.ParseInt(string(jn), 10, 64); err == nil {
		return new(big.Rat).SetInt64(i), true // the usual case, without big.Rat's parser
	}
	r, ok := new(big.Rat).SetString(string(jn))
	return r, ok
}

// numberKeywords are the keywords numberNode reads.
var numberKeywords = [...]string{"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}

// numberNode returns the automaton of the numbers (integers) m allows. The
// constraints are intersected with each other first and with the number
// automaton last: it counts up to 308 digits, so that its product with a
// range that bounds the digits is small, and with a half-open range, big.
// The automata are memoized by the keywords' values.
func (c *compiler) numberNode(ptr string, m map[string]any, integer bool) (*dfa, error) {
	var key strings.Builder
	fmt.Fprint(&key, integer, c.draft4)
	for _, kw := range numberKeywords {
		if v, ok := m[kw]; ok {
			fmt.Fprintf(&key, " %s=%v", kw, v)
		}
	}
	if d, ok := c.numbers[key.String()]; ok {
		return d, nil
	}
	var cons *dfa // the constraints; nil before the first
	have := false
	and := func(d *dfa, ptr string) error {
		if !have {
			cons, have = d, true
			return nil
		}
		var err error
		if cons, err = product(c.m, cons, d, opAnd); err != nil {
			return &SchemaError{Pointer: ptr, Err: err}
		}
		return nil
	}
	if v, ok := m["multipleOf"]; ok {
		r, ok := number(v)
		if !ok || r.Sign() <= 0 {
			return nil, invalid(ptrJoin(ptr, "multipleOf"), "not a positive number")
		}
		if !r.IsInt() || !integer {
			return nil, unsupported(ptrJoin(ptr, "multipleOf"), "multipleOf %s on a number (only integer multiples of integers are done)", r.RatString())
		}
		if !r.Num().IsInt64() || r.Num().Int64() > 1000 {
			return nil, unsupported(ptrJoin(ptr, "multipleOf"), "multipleOf %s above 1000", r.RatString())
		}
		md, err := multipleDFA(c.m, int(r.Num().Int64()))
		if err != nil {
			return nil, &SchemaError{Pointer: ptrJoin(ptr, "multipleOf"), Err: err}
		}
		if err := and(md, ptr); err != nil {
			return nil, err
		}
	}
	type bound struct {
		kw        string
		lower     bool
		exclusive bool
	}
	for _, b := range []bound{{"minimum", true, false}, {"maximum", false, false}, {"exclusiveMinimum", true, true}, {"exclusiveMaximum", false, true}} {
		v, ok := m[b.kw]
		if !ok {
			continue
		}
		kptr := ptrJoin(ptr, b.kw)
		if bv, isBool := v.(bool); isBool {
			// Draft 4: a boolean that makes minimum or maximum exclusive.
			if !bv {
				continue
			}
			base := "minimum"
			if !b.lower {
				base = "maximum"
			}
			if v, ok = m[base]; !ok {
				continue
			}
		} else if !b.exclusive && c.draft4 {
			if ex, _ := m["exclusive"+strings.ToUpper(b.kw[:1])+b.kw[1:]].(bool); ex {
				continue // done by the boolean form
			}
		}
		r, ok := number(v)
		if !ok {
			return nil, invalid(kptr, "not a number")
		}
		re, err := boundRegexp(r, b.lower, integer)
		if err != nil {
			return nil, unsupported(kptr, "%v", err)
		}
		bd, err := anchoredDFA(c.m, re)
		if err != nil {
			return nil, &SchemaError{Pointer: kptr, Err: err}
		}
		if b.exclusive || (c.draft4 && isTrue(m["exclusive"+strings.ToUpper(b.kw[:1])+b.kw[1:]])) {
			eq, err := anchoredDFA(c.m, equalRegexp(r, integer))
			if err != nil {
				return nil, &SchemaError{Pointer: kptr, Err: err}
			}
			if bd, err = product(c.m, bd, eq, opAndNot); err != nil {
				return nil, &SchemaError{Pointer: kptr, Err: err}
			}
		}
		if err := and(bd, kptr); err != nil {
			return nil, err
		}
	}
	d := numberDFA
	if integer {
		d = intDFA
	}
	if have {
		var err error
		if d, err = product(c.m, d, cons, opAnd); err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: err}
		}
	}
	c.numbers[key.String()] = d
	return d, nil
}

// isTrue reports whether v is JSON true (a missing keyword is not).
func isTrue(v any) bool { b, _ := v.(bool); return b }

// multipleDFA accepts integers divisible by k (any sign): state r+1 is the
// remainder r of the digits read so far, so that k+1 states suffice. It
// does not check the number's spelling (leading zeros, one sign): it is
// only used intersected with the integer automaton, which does.
func multipleDFA(m *meter, k int) (*dfa, error) {
	d := &dfa{ncls: 12}
	for b := 0; b < 256; b++ {
		d.cls[b] = 11
	}
	for b := '0'; b <= '9'; b++ {
		d.cls[b] = uint8(b - '0')
	}
	d.cls['-'] = 10
	// State 0: start (before the sign); states 1..k: remainder r+1.
	for s := 0; s <= k; s++ {
		d.accept = append(d.accept, s == 1)
		for c := 0; c < 12; c++ {
			switch {
			case c < 10 && s == 0:
				d.next = append(d.next, int32(c%k+1))
			case c < 10:
				d.next = append(d.next, int32(((s-1)*10+c)%k+1))
			case c == 10 && s == 0:
				d.next = append(d.next, 0) // a sign keeps the start state
			default:
				d.next = append(d.next, -1)
			}
		}
	}
	return d.trim(m)
}

// stringNode sets the strings n allows from m's pattern, format, minLength
// and maxLength: the pattern's and the format's automata intersected, and
// the length bounds intersected as lengthDFA, or, when nothing else
// constrains the content, counted by the matcher instead (strCount): the
// automaton of a length bound has a copy of the universal automaton per
// code point counted.
func (c *compiler) stringNode(ptr string, m map[string]any, n *node) error {
	d := universalDFA
	if v, ok := m["pattern"]; ok {
		s, ok := v.(string)
		if !ok {
			return invalid(ptrJoin(ptr, "pattern"), "not a string")
		}
		c.m.at = ptrJoin(ptr, "pattern")
		pd, err := searchDFA(c.m, s)
		c.m.at = ptr
		if err != nil {
			return &SchemaError{Pointer: ptrJoin(ptr, "pattern"), Err: err}
		}
		if d, err = product(c.m, d, pd, opAnd); err != nil {
			return &SchemaError{Pointer: ptrJoin(ptr, "pattern"), Err: err}
		}
	}
	if v, ok := m["format"]; ok {
		s, _ := v.(string)
		fd, err := c.formatDFA(ptrJoin(ptr, "format"), s)
		if err != nil {
			return err
		}
		if fd != nil {
			if d, err = product(c.m, d, fd, opAnd); err != nil {
				return &SchemaError{Pointer: ptrJoin(ptr, "format"), Err: err}
			}
		}
	}
	minL, maxL := 0, -1
	if v, ok := m["minLength"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return invalid(ptrJoin(ptr, "minLength"), "not a non-negative integer")
		}
		minL = int(min(r.Num().Int64(), 1<<30))
	}
	if v, ok := m["maxLength"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return invalid(ptrJoin(ptr, "maxLength"), "not a non-negative integer")
		}
		maxL = int(min(r.Num().Int64(), 1<<30))
	}
	if minL > 0 || maxL >= 0 {
		if d != nil && d.universal {
			n.str = d
			n.strCount = true
			n.strMin, n.strMax = minL, maxL
			if maxL >= 0 && minL > maxL {
				n.str = nil
			}
			return nil
		}
		ld, err := c.lengthDFA(minL, maxL)
		if err != nil {
			return unsupported(ptr, "minLength/maxLength with a pattern or format: %v", err)
		}
		if d, err = product(c.m, d, ld, opAnd); err != nil {
			return unsupported(ptr, "minLength/maxLength with a pattern or format: %v", err)
		}
	}
	n.str = d
	return nil
}

// objectSpec compiles m's object keywords. Properties are compiled in name
// order; a required name that properties does not describe gets the node
// of additionalProperties. The names are sorted, so that a name's index is
// its rank, the bit that names it in every seenSet and the leaf it ends at
// in the key automaton. minProperties above 1 is refused when other keys
// are allowed: the matcher does not remember other keys, so it could not
// tell a repeated one from a new one.
func (c *compiler) objectSpec(ptr string, m map[string]any) (*objSpec, error) {
	props := map[string]*node{}
	if v, ok := m["properties"]; ok {
		pm, ok := v.(map[string]any)
		if !ok {
			return nil, invalid(ptrJoin(ptr, "properties"), "not an object")
		}
		// In name order: which subschema is compiled first decides where a
		// recursive reference is met, and so whether a schema compiles.
		for _, k := range slices.Sorted(maps.Keys(pm)) {
			pn, err := c.schema(ptrJoin(ptr, "properties", k), pm[k])
			if err != nil {
				return nil, err
			}
			props[k] = pn
		}
	}
	addl := c.anyNode()
	if v, ok := m["additionalProperties"]; ok {
		an, err := c.schema(ptrJoin(ptr, "additionalProperties"), v)
		if err != nil {
			return nil, err
		}
		addl = an
	}
	var required []string
	if v, ok := m["required"]; ok {
		rs, ok := v.([]any)
		if !ok {
			return nil, invalid(ptrJoin(ptr, "required"), "not an array")
		}
		// Each name: its entries in props, names and required, and sorting.
		if err := c.m.charge(len(rs), 128*len(rs)); err != nil {
			return nil, err
		}
		for _, r := range rs {
			s, ok := r.(string)
			if !ok {
				return nil, invalid(ptrJoin(ptr, "required"), "not an array of strings")
			}
			required = append(required, s)
			if _, ok := props[s]; !ok {
				props[s] = addl // a required key that only additionalProperties describes
			}
		}
	}
	names := slices.AppendSeq(make([]string, 0, len(props)), maps.Keys(props))
	slices.Sort(names)
	nodes := make([]*node, len(names))
	for i, k := range names {
		nodes[i] = props[k]
	}
	minP, maxP := 0, -1
	if v, ok := m["minProperties"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return nil, invalid(ptrJoin(ptr, "minProperties"), "not a non-negative integer")
		}
		minP = int(min(r.Num().Int64(), 1<<30))
	}
	if v, ok := m["maxProperties"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return nil, invalid(ptrJoin(ptr, "maxProperties"), "not a non-negative integer")
		}
		maxP = int(min(r.Num().Int64(), 1<<30))
	}
	var addlNode *node
	if !isFalseNode(addl) {
		addlNode = addl
	}
	if minP > 1 && addlNode != nil {
		return nil, unsupported(ptrJoin(ptr, "minProperties"), "minProperties above 1 with additional properties allowed (duplicate keys cannot be told apart)")
	}
	o := c.newObj(names, nodes, addlNode, minP, maxP)
	o.req = newSeenSet(len(names))
	for _, r := range required {
		i := sort.SearchStrings(names, r)
		if !o.req.has(i) {
			o.req.add(i)
			o.nreq++
		}
	}
	return o, nil
}

// isFalseNode reports whether n can be seen to accept nothing before the
// emptiness analysis (a false schema).
func isFalseNode(n *node) bool {
	n = n.deref()
	return !n.filling && !n.null && !n.tru && !n.fal && n.str == nil && n.num == nil && len(n.objs) == 0 && len(n.arrs) == 0
}

// arraySpec compiles m's array keywords: prefixItems, or items as an array
// with additionalItems (drafts 4 to 7), for the first elements, items for
// the rest (nil when items is false: no element past the prefix), and the
// counts. uniqueItems is refused but where maxItems <= 1 makes it hold.
func (c *compiler) arraySpec(ptr string, m map[string]any) (*arrSpec, error) {
	a := c.newArr(&arrSpec{items: c.anyNode(), maxItems: -1})
	tuple := func(kw string, v any) error {
		list, ok := v.([]any)
		if !ok {
			return invalid(ptrJoin(ptr, kw), "not an array")
		}
		for i, s := range list {
			sn, err := c.schema(ptrJoin(ptr, kw, strconv.Itoa(i)), s)
			if err != nil {
				return err
			}
			a.prefix = append(a.prefix, sn)
		}
		return nil
	}
	if v, ok := m["prefixItems"]; ok {
		if err := tuple("prefixItems", v); err != nil {
			return nil, err
		}
	}
	if v, ok := m["items"]; ok {
		if _, isList := v.([]any); isList {
			if _, both := m["prefixItems"]; both {
				return nil, invalid(ptrJoin(ptr, "items"), "an array beside prefixItems")
			}
			if err := tuple("items", v); err != nil {
				return nil, err
			}
			if av, ok := m["additionalItems"]; ok {
				an, err := c.schema(ptrJoin(ptr, "additionalItems"), av)
				if err != nil {
					return nil, err
				}
				a.items = an
			}
		} else {
			in, err := c.schema(ptrJoin(ptr, "items"), v)
			if err != nil {
				return nil, err
			}
			a.items = in
		}
	}
	if v, ok := m["minItems"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return nil, invalid(ptrJoin(ptr, "minItems"), "not a non-negative integer")
		}
		a.minItems = int(min(r.Num().Int64(), 1<<30))
	}
	if v, ok := m["maxItems"]; ok {
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return nil, invalid(ptrJoin(ptr, "maxItems"), "not a non-negative integer")
		}
		a.maxItems = int(min(r.Num().Int64(), 1<<30))
	}
	if isFalseNode(a.items) {
		a.items = nil
	}
	if isTrue(m["uniqueItems"]) && !(a.maxItems >= 0 && a.maxItems <= 1) {
		return nil, unsupported(ptrJoin(ptr, "uniqueItems"), "uniqueItems")
	}
	return a, nil
}

// enumNode builds the node accepting exactly the given values: strings as
// one trie (literalsDFA), numbers as the alternation of their spellings
// (equalRegexp) within numberDFA, objects and arrays as a spec per value
// (constNode).
func (c *compiler) enumNode(ptr string, values []any) (*node, error) {
	n := c.newNode()
	var strs []string
	var nums []string
	for _, v := range values {
		switch x := v.(type) {
		case nil:
			n.null = true
		case bool:
			if x {
				n.tru = true
			} else {
				n.fal = true
			}
		case string:
			strs = append(strs, x)
		case json.Number:
			r, ok := number(x)
			if !ok {
				return nil, invalid(ptr, "bad number %v in enum", x)
			}
			if _, _, ok := decimal(r); !ok {
				return nil, unsupported(ptr, "enum number %v", x)
			}
			nums = append(nums, `(?:`+equalRegexp(r, false)+`)`)
		case map[string]any, []any:
			cn, err := c.constNode(ptr, v)
			if err != nil {
				return nil, err
			}
			n.objs = append(n.objs, cn.objs...)
			n.arrs = append(n.arrs, cn.arrs...)
		}
	}
	var err error
	if len(strs) > 0 {
		if n.str, err = literalsDFA(c.m, dedup(strs)); err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: err}
		}
	}
	if len(nums) > 0 {
		nd, err := anchoredDFA(c.m, strings.Join(dedup(nums), "|"))
		if err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: err}
		}
		if n.num, err = product(c.m, numberDFA, nd, opAnd); err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: err}
		}
	}
	return n, nil
}

// dedup returns the distinct strings of s, sorted, leaving s as it is:
// literalsDFA and the merged names of objSpec need them so.
func dedup(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// constNode builds the node accepting exactly v.
func (c *compiler) constNode(ptr string, v any) (*node, error) {
	switch x := v.(type) {
	case map[string]any:
		names := slices.AppendSeq(make([]string, 0, len(x)), maps.Keys(x))
		slices.Sort(names)
		props := make([]*node, len(names))
		for i, k := range names {
			pn, err := c.constNode(ptr, x[k])
			if err != nil {
				return nil, err
			}
			props[i] = pn
		}
		o := c.newObj(names, props, nil, 0, -1)
		o.req = newSeenSet(len(names))
		for i := range names {
			o.req.add(i)
		}
		o.nreq = len(names)
		n := c.newNode()
		n.objs = []*objSpec{o}
		return n, nil
	case []any:
		a := c.newArr(&arrSpec{minItems: len(x), maxItems: len(x)})
		for _, e := range x {
			en, err := c.constNode(ptr, e)
			if err != nil {
				return nil, err
			}
			a.prefix = append(a.prefix, en)
		}
		n := c.newNode()
		n.arrs = []*arrSpec{a}
		return n, nil
	}
	return c.enumNode(ptr, []any{v})
}

// decodeSchema decodes a schema keeping numbers exact, refusing data after
// it.
var decodeSchema = schemanorm.Decode
