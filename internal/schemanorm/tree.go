package schemanorm

// This file holds the mutable tree the rewrite works on.

import (
	"github.com/go-harmony/harmony/internal/ojson"
)

// kind tells what a node of the mutable tree holds.
type kind uint8

const (
	// kRaw is a parsed JSON value kept as it is and printed with
	// ojson.AppendCompact: a non-schema keyword's value ("default", "enum",
	// "required", ...) or a non-object value in a schema Position (a boolean
	// schema).
	kRaw kind = iota
	// kSchema is a schema object: keywords in document order.
	kSchema
	// kMap is an object whose member values are schemas ("properties",
	// "$defs", ...).
	kMap
	// kList is an array of schemas ("allOf", "prefixItems", ...).
	kList
	// kArr is an array of raw values built by a rewrite (the one-value
	// "enum" of a "const", a "required" union, ...).
	kArr
)

// node is one value of the tree. Nodes are never modified once a rule has
// returned them, so subtrees may be shared; rules copy what they change.
type node struct {
	kind kind
	// raw is the value of a kRaw node.
	raw *ojson.Value
	// schemaPos marks a kRaw node that sits in a schema Position.
	schemaPos bool
	// keys and vals are the members of a kSchema or kMap node; vals alone
	// are the elements of a kList or kArr node.
	keys []string
	vals []*node
	// index maps keys to positions for large nodes of the parsed tree.
	index map[string]int
	// deferred marks the output "$defs"/"definitions" placeholder that
	// receives the kept definitions once they are known; it is left out of
	// the output when it stays empty.
	deferred bool
}

// build turns a parsed value in a schema Position into a tree.
func build(v *ojson.Value) *node {
	if v.Kind() != ojson.Object {
		return &node{kind: kRaw, raw: v, schemaPos: true}
	}
	n := &node{kind: kSchema, keys: make([]string, v.Len()), vals: make([]*node, v.Len())}
	for i := 0; i < v.Len(); i++ {
		k, c := v.Member(i)
		n.keys[i] = k
		n.vals[i] = buildAt(keywordPos[k], c)
	}
	return n
}

func buildAt(p Position, v *ojson.Value) *node {
	switch p {
	case InSchema:
		return build(v)
	case InList:
		if v.Kind() == ojson.Array {
			n := &node{kind: kList, vals: make([]*node, v.Len())}
			for i := range n.vals {
				n.vals[i] = build(v.Index(i))
			}
			return n
		}
		return build(v)
	case InMap:
		if v.Kind() == ojson.Object {
			n := &node{kind: kMap, keys: make([]string, v.Len()), vals: make([]*node, v.Len())}
			for i := 0; i < v.Len(); i++ {
				k, c := v.Member(i)
				n.keys[i] = k
				n.vals[i] = build(c)
			}
			return n
		}
	}
	return &node{kind: kRaw, raw: v}
}

const indexThreshold = 16

// find returns the Position of key among n's members, or -1.
func (n *node) find(key string) int {
	if n.index != nil {
		if i, ok := n.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// lookup is find for the parsed tree, which is never modified: large
// objects get an index on first use.
func (n *node) lookup(key string) int {
	if n.index == nil && len(n.keys) > indexThreshold {
		n.index = make(map[string]int, len(n.keys))
		for i, k := range n.keys {
			if _, dup := n.index[k]; !dup {
				n.index[k] = i
			}
		}
	}
	return n.find(key)
}

// get returns the member named key, or nil.
func (n *node) get(key string) *node {
	if n == nil || (n.kind != kSchema && n.kind != kMap) {
		return nil
	}
	if i := n.find(key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// str returns the text of a raw string node.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != kRaw {
		return "", false
	}
	return n.raw.AsString()
}

// clone returns a shallow copy of n with its own member slices.
func (n *node) clone() *node {
	return &node{
		kind:      n.kind,
		raw:       n.raw,
		schemaPos: n.schemaPos,
		keys:      append([]string(nil), n.keys...),
		vals:      append([]*node(nil), n.vals...),
		deferred:  n.deferred,
	}
}
