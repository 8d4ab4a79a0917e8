package schemanorm

// This file analyses the references of a document: which local "$ref"s
// resolve to which schema, whether they can be inlined, which take part in a
// cycle, which paths must keep their shape; and, on the output, which
// definitions a remaining reference still needs.

import (
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// resolve returns the schema of the parsed tree at ptr, or nil.
func (z *normalizer) resolve(ptr string) *node {
	n := z.root
	toks, err := Pointer(ptr).Tokens()
	if err != nil {
		return nil
	}
	for _, tok := range toks {
		switch n.kind {
		case kSchema, kMap:
			i := n.lookup(tok)
			if i < 0 {
				return nil
			}
			n = n.vals[i]
		case kList:
			i, ok := ArrayIndex(tok, len(n.vals))
			if !ok {
				return nil
			}
			n = n.vals[i]
		default:
			return nil
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
				ep := d.path + "/" + EscapeToken(name)
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
