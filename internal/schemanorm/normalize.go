// Package schemanorm rewrites the JSON Schemas that clients generate
// (Pydantic, zod-to-json-schema, OpenAI strict mode, ...) into the plain
// shapes that the harmony TypeScript renderer (internal/schemats) can show
// the model: no $ref, no anyOf, no {"type": "null"} members, no const, no
// allOf of objects.
//
// The rewrite works on the ojson parse of the schema, so object members keep
// their document order, and every value it does not rewrite (defaults, enums,
// examples, numbers) is printed by ojson.AppendCompact exactly as the
// renderer would print it.
//
// Rules, applied to every schema of the document (the root, and every
// subschema under properties, items, oneOf, allOf, $defs, ...; never inside
// values such as "default", "enum" or "examples"), children first:
//
//   - A local "$ref" (a JSON pointer into the document: "#/$defs/X",
//     "#/definitions/X", "#/properties/a", "#") is replaced by its target,
//     itself normalized. Keys next to the "$ref" win over the target's keys
//     ({"$ref": ..., "description": ...} keeps its own description); the
//     target's keys take the place of "$ref". A boolean target true adds no
//     keys; false becomes {"not": {}}.
//   - A "$ref" to a schema that takes part in a reference cycle (a recursive
//     model) is left as it is, as is everything on the JSON pointer path to
//     that schema, so that the reference still resolves. The result is
//     finite and normalizing it again changes nothing.
//   - When the document has a $ref this package cannot resolve safely (one
//     that does not resolve, one to another document, an anchor, a
//     $dynamicRef or $recursiveRef, or a nested $id that changes the base of
//     references), no $ref is inlined and no definition is removed; the
//     rules below still apply away from the paths that references point to.
//   - "$defs" and "definitions" members that no remaining "$ref" points into
//     are removed, and the keyword too once it is empty.
//   - "anyOf" becomes "oneOf" (unless the schema also has a "oneOf").
//   - Members of "oneOf" that are {"type": "null"} (optionally with a title,
//     description or $comment) are removed and the schema gets
//     "nullable": true. When one member remains, its keys replace the
//     "oneOf", the schema's own keys (description, default, title, ...)
//     winning over the member's, and "nullable" follows them.
//   - "type": ["X", "null"] becomes "type": "X" followed by
//     "nullable": true; with several non-null types the array keeps them.
//   - "const": v becomes "enum": [v] (unless the schema also has an "enum").
//   - "allOf" is merged into its schema when it has one member, or when all
//     its members (and the schema) are object schemas ("type" absent or
//     "object"). The schema holding the allOf counts as the first member.
//     Members' keys take the place of "allOf", in member order; "properties"
//     are concatenated in order (the first definition of a property wins),
//     "required" lists are united in order, and for every other key the
//     first member that has it wins.
//
// Members containing "$id", "$anchor", "$schema", "$dynamicRef" or
// "$recursiveRef" are never merged or spliced into their parent, nor is a
// member's "$ref" into a parent that has one; and a merge or splice that
// would drop a member's value holding a reference or an identifier (because
// the parent's key wins) is not done. These keep the result a fixed point:
// which references can be inlined, and which paths must keep their shape,
// is the same when the output is normalized again.
//
// The rewrite is for display: anyOf as oneOf and a merged allOf with
// conflicting keys are not equivalent schemas, so validate against the
// original.
package schemanorm

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// Errors returned by Normalize besides the *ojson.SyntaxError of an input
// that is not JSON.
var (
	// ErrTooLarge means that inlining references would make the output
	// larger than MaxOutput.
	ErrTooLarge = errors.New("normalized schema too large")
	// ErrTooDeep means that inlining references would nest the output
	// deeper than ojson.DefaultMaxDepth, so that it could not be parsed
	// back.
	ErrTooDeep = errors.New("normalized schema nested too deeply")
)

// MaxOutput returns the size limit of the normalization of an input of n
// bytes: 4 MiB plus four times the input.
func MaxOutput(n int) int { return 4<<20 + 4*n }

var (
	trueNode    = &node{kind: kRaw, raw: mustParse("true")}
	emptyNode   = &node{kind: kSchema}
	nothingNode = build(mustParse(`{"not":{}}`))
)

func mustParse(s string) *ojson.Value {
	v, err := ojson.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// Normalize parses schema and returns its normalized compact JSON. An input
// that is JSON but not an object (a boolean schema, say) is returned in
// compact form. Errors are an *ojson.SyntaxError, ErrTooLarge or ErrTooDeep.
func Normalize(schema []byte) ([]byte, error) {
	v, err := ojson.Parse(schema)
	if err != nil {
		return nil, err
	}
	root := build(v)
	if root.kind != kSchema {
		return ojson.AppendCompact(nil, v), nil
	}
	z := &normalizer{
		root:    root,
		targets: map[*node]*node{},
		cyclic:  map[*node]bool{},
		frozen:  map[string]bool{},
		memo:    map[*node]*node{},
		defs:    map[*node]*deferredDefs{},

		stickyMemo: map[*node]bool{},
	}
	z.analyse()
	out := z.schema(root, "", true)
	if z.inline {
		z.finish(out)
	}
	w := writer{limit: MaxOutput(len(schema))}
	w.node(out, 0)
	if w.err != nil {
		return nil, w.err
	}
	return w.buf, nil
}

type normalizer struct {
	root *node
	// inline is false when references are left alone (see the package
	// documentation).
	inline bool
	// targets maps each "$ref" holder of the parsed tree to the schema its
	// local reference resolves to.
	targets map[*node]*node
	// cyclic marks the targets that take part in a reference cycle.
	cyclic map[*node]bool
	// frozen holds the JSON pointers of the schemas whose oneOf, anyOf and
	// allOf must keep their shape because a remaining reference points
	// through them.
	frozen map[string]bool
	// memo holds the normalized copy of each inlined target.
	memo map[*node]*node
	// defs describes each "$defs"/"definitions" placeholder of the output.
	defs map[*node]*deferredDefs
	// stickyMemo caches sticky.
	stickyMemo map[*node]bool
}

type deferredDefs struct {
	path string  // JSON pointer of the keyword
	orig *node   // the parsed kMap
	kept []*node // normalized kept entries, nil for the others
}

// LocalPointer returns the JSON pointer of a local reference, canonically
// escaped ("#/a/b" → "/a/b", "#/%24defs/X" → "/$defs/X", "#" → ""), or false
// when ref is not a JSON pointer fragment.
func LocalPointer(ref string) (string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", false
	}
	if frag == "" {
		return "", true
	}
	if frag[0] != '/' {
		return "", false
	}
	toks := strings.Split(frag[1:], "/")
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escape(unescape(t)))
	}
	return b.String(), true
}

// resolve returns the schema of the parsed tree at ptr, or nil.
func (z *normalizer) resolve(ptr string) *node {
	n := z.root
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = unescape(tok)
			switch n.kind {
			case kSchema, kMap:
				i := n.lookup(tok)
				if i < 0 {
					return nil
				}
				n = n.vals[i]
			case kList:
				i, ok := arrayIndex(tok, len(n.vals))
				if !ok {
					return nil
				}
				n = n.vals[i]
			default:
				return nil
			}
		}
	}
	if n.kind == kSchema || (n.kind == kRaw && n.schemaPos && n.raw.Kind() == ojson.Bool) {
		return n
	}
	return nil
}

type refInfo struct {
	holder *node
	ptr    string
}

// analyse finds the references of the parsed tree, decides whether they can
// be inlined, finds the cyclic ones and freezes the paths they need.
func (z *normalizer) analyse() {
	disable := false
	var refs []refInfo
	var visit func(n *node, isRoot bool)
	visit = func(n *node, isRoot bool) {
		switch n.kind {
		case kSchema:
			for i, k := range n.keys {
				c := n.vals[i]
				switch k {
				case "$ref":
					if s, ok := c.str(); ok {
						if ptr, ok := LocalPointer(s); ok {
							refs = append(refs, refInfo{n, ptr})
						} else {
							disable = true
						}
					}
				case "$dynamicRef", "$recursiveRef":
					disable = true
				case "$id", "id":
					if _, ok := c.str(); ok && !isRoot {
						disable = true
					}
				}
				visit(c, false)
			}
		case kMap, kList:
			for _, c := range n.vals {
				visit(c, false)
			}
		}
	}
	visit(z.root, true)
	ptrOf := map[*node]string{}
	if !disable {
		for _, r := range refs {
			t := z.resolve(r.ptr)
			if t == nil {
				disable = true
				break
			}
			z.targets[r.holder] = t
			ptrOf[t] = r.ptr
		}
	}
	if disable {
		// Nothing is inlined; keep every path a reference follows.
		z.targets = map[*node]*node{}
		for _, r := range refs {
			for i := 0; i < len(r.ptr); i++ {
				if r.ptr[i] == '/' {
					z.frozen[r.ptr[:i]] = true
				}
			}
		}
		return
	}
	z.inline = true
	z.findCycles()
	for t, ptr := range ptrOf {
		if !z.cyclic[t] {
			continue
		}
		toks := strings.Split(ptr, "/")
		for i := 1; i < len(toks); i++ {
			switch toks[i] {
			case "anyOf", "oneOf", "allOf":
				z.frozen[strings.Join(toks[:i], "/")] = true
			}
		}
	}
}

// findCycles marks the targets from which a chain of references leads back
// to themselves. Target T has an edge to U when T's subtree (outside its
// nested $defs and definitions, which copies drop) holds a reference to U.
func (z *normalizer) findCycles() {
	ids := map[*node]int{}
	var nodes []*node
	for _, t := range z.targets {
		if _, ok := ids[t]; !ok {
			ids[t] = len(nodes)
			nodes = append(nodes, t)
		}
	}
	if len(nodes) == 0 {
		return
	}
	edges := make([][]int, len(nodes))
	seen := map[[2]int]bool{}
	var open []int
	var dfs func(n *node, barrier int)
	dfs = func(n *node, barrier int) {
		if id, ok := ids[n]; ok {
			open = append(open, id)
			defer func() { open = open[:len(open)-1] }()
		}
		switch n.kind {
		case kSchema:
			if t, ok := z.targets[n]; ok {
				u := ids[t]
				for _, o := range open[barrier:] {
					if e := [2]int{o, u}; !seen[e] {
						seen[e] = true
						edges[o] = append(edges[o], u)
					}
				}
			}
			for i, k := range n.keys {
				c := n.vals[i]
				b := barrier
				if (k == "$defs" || k == "definitions") && c.kind == kMap {
					b = len(open)
				}
				dfs(c, b)
			}
		case kMap, kList:
			for _, c := range n.vals {
				dfs(c, barrier)
			}
		}
	}
	dfs(z.root, 0)

	// Tarjan's strongly connected components.
	index := make([]int, len(nodes))
	low := make([]int, len(nodes))
	on := make([]bool, len(nodes))
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range edges[v] {
			if index[w] < 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > 1 {
			for _, w := range comp {
				z.cyclic[nodes[w]] = true
			}
			return
		}
		for _, w := range edges[v] {
			if w == v {
				z.cyclic[nodes[v]] = true
			}
		}
	}
	for v := range nodes {
		if index[v] < 0 {
			strong(v)
		}
	}
}

// schema returns the normalization of n. path is n's JSON pointer when root
// is true (n is part of the document itself rather than a copy of a
// reference's target).
func (z *normalizer) schema(n *node, path string, root bool) *node {
	if n.kind != kSchema {
		return n
	}
	var target *node
	if z.inline {
		if t, ok := z.targets[n]; ok && !z.cyclic[t] {
			target = t
		}
	}
	out := &node{kind: kSchema, keys: make([]string, 0, len(n.keys)), vals: make([]*node, 0, len(n.keys))}
	refAt := -1
	for i, k := range n.keys {
		c := n.vals[i]
		if target != nil && k == "$ref" {
			refAt = len(out.keys)
			continue
		}
		var cp string
		if root {
			cp = path + "/" + escape(k)
		}
		if z.inline && (k == "$defs" || k == "definitions") && c.kind == kMap {
			if !root {
				continue // nothing points into a copy
			}
			ph := &node{kind: kMap, deferred: true}
			z.defs[ph] = &deferredDefs{path: cp, orig: c, kept: make([]*node, len(c.vals))}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, ph)
			continue
		}
		out.keys = append(out.keys, k)
		out.vals = append(out.vals, z.child(c, cp, root))
	}
	if target != nil {
		out = splice(out, refAt, z.copyOf(target))
	}
	return z.rules(out, path, root)
}

// child normalizes a keyword's value.
func (z *normalizer) child(c *node, path string, root bool) *node {
	switch c.kind {
	case kSchema:
		return z.schema(c, path, root)
	case kMap, kList:
		out := &node{kind: c.kind, keys: c.keys, vals: make([]*node, len(c.vals))}
		for i, e := range c.vals {
			var ep string
			if root {
				if c.kind == kMap {
					ep = path + "/" + escape(c.keys[i])
				} else {
					ep = path + "/" + strconv.Itoa(i)
				}
			}
			out.vals[i] = z.schema(e, ep, root)
		}
		return out
	}
	return c
}

// copyOf returns the normalized copy of a reference's target.
func (z *normalizer) copyOf(t *node) *node {
	if c, ok := z.memo[t]; ok {
		return c
	}
	c := z.schema(t, "", false)
	z.memo[t] = c
	return c
}

// splice returns n with the members of schema c that n lacks inserted at
// position at.
func splice(n *node, at int, c *node) *node {
	if c.kind == kRaw {
		if b, _ := c.raw.AsBool(); b {
			c = emptyNode
		} else {
			c = nothingNode
		}
	}
	out := &node{kind: kSchema, keys: make([]string, 0, len(n.keys)+len(c.keys)), vals: make([]*node, 0, len(n.keys)+len(c.keys))}
	out.keys = append(out.keys, n.keys[:at]...)
	out.vals = append(out.vals, n.vals[:at]...)
	for i, k := range c.keys {
		if n.find(k) < 0 {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, c.vals[i])
		}
	}
	out.keys = append(out.keys, n.keys[at:]...)
	out.vals = append(out.vals, n.vals[at:]...)
	return out
}

// rules applies the per-schema rewrites until none applies.
func (z *normalizer) rules(n *node, path string, root bool) *node {
	frozen := root && z.frozen[path]
	for {
		m, ok := constToEnum(n)
		if !ok {
			m, ok = typeNull(n)
		}
		if !ok && !frozen {
			m, ok = z.mergeAllOf(n)
		}
		if !ok && !frozen {
			m, ok = anyOfToOneOf(n)
		}
		if !ok && !frozen {
			m, ok = z.foldNull(n)
		}
		if !ok {
			return n
		}
		n = m
	}
}

func constToEnum(n *node) (*node, bool) {
	i := n.find("const")
	if i < 0 || n.find("enum") >= 0 {
		return nil, false
	}
	m := n.clone()
	m.keys[i] = "enum"
	m.vals[i] = &node{kind: kArr, vals: []*node{n.vals[i]}}
	return m, true
}

// elems returns the elements of an array value, raw or built.
func elems(n *node) ([]*node, bool) {
	switch {
	case n.kind == kArr:
		return n.vals, true
	case n.kind == kRaw && n.raw.Kind() == ojson.Array:
		out := make([]*node, n.raw.Len())
		for i := range out {
			out[i] = &node{kind: kRaw, raw: n.raw.Index(i)}
		}
		return out, true
	}
	return nil, false
}

func typeNull(n *node) (*node, bool) {
	i := n.find("type")
	if i < 0 {
		return nil, false
	}
	types, ok := elems(n.vals[i])
	if !ok {
		return nil, false
	}
	var rest []*node
	nulls := 0
	for _, t := range types {
		s, ok := t.str()
		if !ok {
			return nil, false
		}
		if s == "null" {
			nulls++
		} else {
			rest = append(rest, t)
		}
	}
	if nulls == 0 || len(rest) == 0 {
		return nil, false
	}
	m := n.clone()
	if len(rest) == 1 {
		m.vals[i] = rest[0]
	} else {
		m.vals[i] = &node{kind: kArr, vals: rest}
	}
	return setNullable(m, i+1), true
}

// setNullable sets "nullable": true on m, which the caller owns, inserting
// it at position at when m has no "nullable" yet.
func setNullable(m *node, at int) *node {
	if j := m.find("nullable"); j >= 0 {
		m.vals[j] = trueNode
		return m
	}
	m.keys = append(m.keys[:at], append([]string{"nullable"}, m.keys[at:]...)...)
	m.vals = append(m.vals[:at], append([]*node{trueNode}, m.vals[at:]...)...)
	return m
}

func anyOfToOneOf(n *node) (*node, bool) {
	i := n.find("anyOf")
	if i < 0 || n.vals[i].kind != kList || n.find("oneOf") >= 0 {
		return nil, false
	}
	m := n.clone()
	m.keys[i] = "oneOf"
	return m, true
}

// annotations are the keys a {"type": "null"} member may have and still be
// folded. Definitions are allowed too when nothing in them is sticky: in
// normal mode they are placeholders that references into a oneOf member
// never fill (such references freeze the oneOf).
var annotations = map[string]bool{"type": true, "title": true, "description": true, "$comment": true}

func (z *normalizer) isNullSchema(n *node) bool {
	if n.kind != kSchema {
		return false
	}
	if t, ok := n.get("type").str(); !ok || t != "null" {
		return false
	}
	for i, k := range n.keys {
		if annotations[k] {
			continue
		}
		if (k == "$defs" || k == "definitions") && !z.sticky(n.vals[i]) {
			continue
		}
		return false
	}
	return true
}

// identity are the keys that keep a member from being merged or spliced into
// its parent: what changes how references resolve, and dynamic references.
var identity = []string{"$id", "id", "$anchor", "$dynamicAnchor", "$schema", "$dynamicRef", "$recursiveRef"}

// spliceable reports whether the keys of member n may move into its parent.
// A "$ref" that is left (a recursive one) may: {"$ref": X, "nullable": true}
// reads better than a one-member oneOf.
func spliceable(parent, n *node) bool {
	if n.kind != kSchema {
		return false
	}
	for _, k := range identity {
		if n.find(k) >= 0 {
			return false
		}
	}
	return n.find("$ref") < 0 || parent.find("$ref") < 0
}

// without returns a copy of n without member i.
func without(n *node, i int) *node {
	m := &node{kind: n.kind, keys: make([]string, 0, len(n.keys)-1), vals: make([]*node, 0, len(n.vals)-1)}
	m.keys = append(append(m.keys, n.keys[:i]...), n.keys[i+1:]...)
	m.vals = append(append(m.vals, n.vals[:i]...), n.vals[i+1:]...)
	return m
}

func (z *normalizer) foldNull(n *node) (*node, bool) {
	i := n.find("oneOf")
	if i < 0 || n.vals[i].kind != kList {
		return nil, false
	}
	var rest []*node
	for _, v := range n.vals[i].vals {
		if !z.isNullSchema(v) {
			rest = append(rest, v)
		}
	}
	if len(rest) == len(n.vals[i].vals) || len(rest) == 0 {
		return nil, false
	}
	if len(rest) == 1 && spliceable(n, rest[0]) && !z.dropsSticky(n, rest[0]) {
		base := without(n, i)
		m := splice(base, i, rest[0])
		return setNullable(m, i+len(m.keys)-len(base.keys)), true
	}
	m := n.clone()
	m.vals[i] = &node{kind: kList, vals: rest}
	return setNullable(m, i+1), true
}

// sticky reports whether the subtree n holds a reference or an identifier.
// Rewrites never drop such a subtree (when a parent's key wins over a
// member's), because whether references can be inlined, and which paths
// stay frozen, depends on them: dropping one would make a second
// normalization differ from the first.
func (z *normalizer) sticky(n *node) bool {
	if s, ok := z.stickyMemo[n]; ok {
		return s
	}
	s := false
	if n.kind == kSchema {
		for _, k := range stickyKeys {
			if n.find(k) >= 0 {
				s = true
				break
			}
		}
	}
	if !s && n.kind != kRaw && n.kind != kArr {
		for _, c := range n.vals {
			if z.sticky(c) {
				s = true
				break
			}
		}
	}
	z.stickyMemo[n] = s
	return s
}

var stickyKeys = []string{"$ref", "$dynamicRef", "$recursiveRef", "$id", "id", "$anchor", "$dynamicAnchor"}

// dropsSticky reports whether splicing member mb into n would drop a sticky
// member value because n has the same key.
func (z *normalizer) dropsSticky(n, mb *node) bool {
	for j, k := range mb.keys {
		if n.find(k) >= 0 && z.sticky(mb.vals[j]) {
			return true
		}
	}
	return false
}

// isObjectType reports whether n has no "type" or "type": "object".
func isObjectType(n *node) bool {
	t := n.get("type")
	if t == nil {
		return true
	}
	s, ok := t.str()
	return ok && s == "object"
}

func (z *normalizer) mergeAllOf(n *node) (*node, bool) {
	i := n.find("allOf")
	if i < 0 || n.vals[i].kind != kList || len(n.vals[i].vals) == 0 {
		return nil, false
	}
	members := n.vals[i].vals
	for _, mb := range members {
		if !spliceable(n, mb) || (len(members) > 1 && mb.find("$ref") >= 0) {
			return nil, false
		}
		if len(members) > 1 && !isObjectType(mb) {
			return nil, false
		}
	}
	if len(members) > 1 && !isObjectType(n) {
		return nil, false
	}
	m := without(n, i)
	at := i
	for _, mb := range members {
		for j, k := range mb.keys {
			v := mb.vals[j]
			p := m.find(k)
			if p < 0 {
				m.keys = append(m.keys[:at], append([]string{k}, m.keys[at:]...)...)
				m.vals = append(m.vals[:at], append([]*node{v}, m.vals[at:]...)...)
				at++
				continue
			}
			switch k {
			case "properties":
				if props, dropped, ok := mergeProperties(m.vals[p], v); ok {
					for _, d := range dropped {
						if z.sticky(d) {
							return nil, false
						}
					}
					m.vals[p] = props
					continue
				}
			case "required":
				if req, ok := unite(m.vals[p], v); ok {
					m.vals[p] = req
					continue
				}
			}
			if z.sticky(v) {
				return nil, false
			}
		}
	}
	return m, true
}

// mergeProperties appends to the properties a those of b that a lacks, and
// returns the ones of b left out.
func mergeProperties(a, b *node) (merged *node, dropped []*node, ok bool) {
	if a.kind != kMap || b.kind != kMap || a.deferred || b.deferred {
		return nil, nil, false
	}
	m := &node{kind: kMap, keys: append([]string(nil), a.keys...), vals: append([]*node(nil), a.vals...)}
	for i, k := range b.keys {
		if m.find(k) < 0 {
			m.keys = append(m.keys, k)
			m.vals = append(m.vals, b.vals[i])
		} else {
			dropped = append(dropped, b.vals[i])
		}
	}
	return m, dropped, true
}

func unite(a, b *node) (*node, bool) {
	ea, ok1 := elems(a)
	eb, ok2 := elems(b)
	if !ok1 || !ok2 {
		return nil, false
	}
	seen := map[string]bool{}
	out := &node{kind: kArr}
	for _, e := range append(append([]*node(nil), ea...), eb...) {
		key := string(ojson.AppendCompact(nil, e.raw))
		if !seen[key] {
			seen[key] = true
			out.vals = append(out.vals, e)
		}
	}
	return out, true
}

// finish decides which definitions stay — those that a remaining reference
// of the output points into — normalizes them, and fills the placeholders.
func (z *normalizer) finish(out *node) {
	w := &refWalker{seen: map[*node]bool{}, prefixes: map[string]bool{}}
	w.walk(out)
	for progress := true; progress; {
		progress = false
		for i := 0; i < len(w.placeholders); i++ {
			d := z.defs[w.placeholders[i]]
			for j, name := range d.orig.keys {
				if d.kept[j] != nil {
					continue
				}
				ep := d.path + "/" + escape(name)
				if !w.prefixes[ep] {
					continue
				}
				d.kept[j] = z.schema(d.orig.vals[j], ep, true)
				w.walk(d.kept[j])
				progress = true
			}
		}
	}
	for _, ph := range w.placeholders {
		d := z.defs[ph]
		for j, v := range d.kept {
			if v != nil {
				ph.keys = append(ph.keys, d.orig.keys[j])
				ph.vals = append(ph.vals, v)
			}
		}
	}
}

// refWalker collects, from an output tree, the JSON pointers that remaining
// local references point to (with all their prefixes) and the definition
// placeholders.
type refWalker struct {
	seen         map[*node]bool
	prefixes     map[string]bool
	placeholders []*node
}

func (w *refWalker) walk(n *node) {
	if n == nil || w.seen[n] {
		return
	}
	w.seen[n] = true
	switch n.kind {
	case kSchema:
		if s, ok := n.get("$ref").str(); ok {
			if ptr, ok := LocalPointer(s); ok {
				for i := 1; i <= len(ptr); i++ {
					if i == len(ptr) || ptr[i] == '/' {
						w.prefixes[ptr[:i]] = true
					}
				}
			}
		}
	case kMap:
		if n.deferred {
			w.placeholders = append(w.placeholders, n)
		}
	}
	for _, c := range n.vals {
		w.walk(c)
	}
}

// writer prints an output tree as compact JSON.
type writer struct {
	buf   []byte
	limit int
	err   error
}

func (w *writer) node(n *node, depth int) {
	if w.err != nil {
		return
	}
	if len(w.buf) > w.limit {
		w.err = ErrTooLarge
		return
	}
	switch n.kind {
	case kRaw:
		if depth+rawDepth(n.raw) > ojson.DefaultMaxDepth {
			w.err = ErrTooDeep
			return
		}
		w.buf = ojson.AppendCompact(w.buf, n.raw)
	case kSchema, kMap:
		if depth+1 > ojson.DefaultMaxDepth {
			w.err = ErrTooDeep
			return
		}
		w.buf = append(w.buf, '{')
		first := true
		for i, k := range n.keys {
			v := n.vals[i]
			if v.kind == kMap && v.deferred && len(v.keys) == 0 {
				continue
			}
			if !first {
				w.buf = append(w.buf, ',')
			}
			first = false
			w.buf = ojson.AppendString(w.buf, k)
			w.buf = append(w.buf, ':')
			w.node(v, depth+1)
		}
		w.buf = append(w.buf, '}')
	case kList, kArr:
		if depth+1 > ojson.DefaultMaxDepth {
			w.err = ErrTooDeep
			return
		}
		w.buf = append(w.buf, '[')
		for i, v := range n.vals {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.node(v, depth+1)
		}
		w.buf = append(w.buf, ']')
	}
	if w.err == nil && len(w.buf) > w.limit {
		w.err = ErrTooLarge
	}
}

// rawDepth is the nesting depth of arrays and objects in v.
func rawDepth(v *ojson.Value) int {
	d := 0
	switch v.Kind() {
	case ojson.Array:
		for i := 0; i < v.Len(); i++ {
			d = max(d, rawDepth(v.Index(i)))
		}
		return d + 1
	case ojson.Object:
		for i := 0; i < v.Len(); i++ {
			_, c := v.Member(i)
			d = max(d, rawDepth(c))
		}
		return d + 1
	}
	return 0
}
