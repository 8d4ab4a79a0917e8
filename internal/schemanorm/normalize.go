package schemanorm

import (
	"errors"

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
