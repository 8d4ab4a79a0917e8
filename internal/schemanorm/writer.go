package schemanorm

// This file prints an output tree as compact JSON within the size and depth
// limits.

import (
	"github.com/go-harmony/harmony/internal/ojson"
)

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
