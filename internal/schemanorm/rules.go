package schemanorm

// This file holds the rewrite rules of the package documentation, applied
// to each schema of the document, children first.

import (
	"strconv"

	"github.com/go-harmony/harmony/internal/ojson"
)

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
			cp = path + "/" + EscapeToken(k)
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
					ep = path + "/" + EscapeToken(c.keys[i])
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
