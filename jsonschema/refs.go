package jsonschema

// This file rewrites the local references of a schema before jsonschema/v5
// reads them, so that it follows each one to where schemanorm.ParseFragment
// (and so constrain) says it leads.
//
// Why: jsonschema/v5 reads a fragment it does not know as the location of a
// subschema by splitting it at "/", then undoing the "~" escapes, then
// percent-decoding each token ((*resource).resolveFragment), where RFC 6901
// percent-decodes first: "#/$defs/%7E0" names the member "~0" for it and
// "~" for constrain, "#/$defs/a%2Fb" the member "a/b" instead of "b" in
// "a", "#/$defs/x~2" the member "x~2" instead of nothing. It also reads
// "#/" as the root rather than as its member "", and takes "01", "+1" or
// "-0" as array indexes (strconv.Atoi), which RFC 6901 does not. Each
// reference is therefore given to it in the form schemanorm.CanonicalFragment
// writes, which both readings read alike, or, when RFC 6901 says it names
// nothing, as a fragment that names nothing for jsonschema/v5 either.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
)

// unresolvableRef is the reference jsonschema/v5 is given for one that RFC
// 6901 says names nothing: it names nothing for jsonschema/v5 either, since
// its one token is the byte 0xFF, which no member name holds (the library
// decodes the schema with encoding/json, which turns invalid UTF-8 into
// U+FFFD), and no subschema location it knows is written so. The compiler
// then reports it "not found", and explainCompileError names the reference
// as the user wrote it.
const unresolvableRef = "#/%FF"

// refNeedsRewrite reports whether the reference ref, the string value of a
// reference keyword, may read differently for jsonschema/v5 than for
// schemanorm.ParseFragment: a JSON pointer fragment that is not canonical,
// "#/", or one with a token such as "01" that strconv.Atoi reads as an
// array index. It allocates only when ref is not canonical.
func refNeedsRewrite(ref string) bool {
	if !strings.HasPrefix(ref, "#/") {
		return false // an anchor, "#", or another document's
	}
	if c, err := schemanorm.CanonicalFragment(ref); err != nil || c != ref {
		return true
	}
	return ref == "#/" || hasAtoiIndex(ref)
}

// hasAtoiIndex reports whether a token of the canonical fragment frag is an
// integer that strconv.Atoi reads but RFC 6901 does not take as an array
// index: signed, or with a leading zero ("+1", "-0", "01").
func hasAtoiIndex(frag string) bool {
	for rest := frag[1:]; rest != ""; {
		rest = rest[1:] // the "/" before a token
		tok := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			tok, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		if len(tok) < 2 || (tok[0] != '+' && tok[0] != '-' && tok[0] != '0') {
			continue
		}
		digits := true
		for i := 1; i < len(tok); i++ {
			digits = digits && '0' <= tok[i] && tok[i] <= '9'
		}
		if digits {
			return true
		}
	}
	return false
}

// anyRefNeedsRewrite reports whether an object anywhere in the parsed
// document v, in a schema position or not, has a reference keyword whose
// value refNeedsRewrite reports. It allocates nothing when none has.
func anyRefNeedsRewrite(v *ojson.Value) bool {
	switch v.Kind() {
	case ojson.Object:
		for i := 0; i < v.Len(); i++ {
			k, c := v.Member(i)
			if isRefKeyword(k) {
				if s, ok := c.AsString(); ok && refNeedsRewrite(s) {
					return true
				}
			}
			if anyRefNeedsRewrite(c) {
				return true
			}
		}
	case ojson.Array:
		for i := 0; i < v.Len(); i++ {
			if anyRefNeedsRewrite(v.Index(i)) {
				return true
			}
		}
	}
	return false
}

// isRefKeyword reports whether kw is one of refKeywords.
func isRefKeyword(kw string) bool {
	for _, k := range refKeywords() {
		if kw == k {
			return true
		}
	}
	return false
}

// canonicalRefs rewrites, in v (the decoded form of doc), every reference
// that refNeedsRewrite reports into the one jsonschema/v5 must be given
// (see rewriteRef), and reports whether it changed any. When none needs it,
// which is the common case, it allocates nothing and the schema's own bytes
// go to the compiler. It returns a refusal for a reference jsonschema/v5
// cannot be made to follow.
func canonicalRefs(doc *ojson.Value, v any) (changed bool, refusal *compiledSchema) {
	if !anyRefNeedsRewrite(doc) {
		return false, nil
	}
	return rewriteRefs(doc, v)
}

// rewriteRefs is canonicalRefs once a reference may need rewriting.
func rewriteRefs(doc *ojson.Value, v any) (changed bool, refusal *compiledSchema) {
	type rewrite struct {
		holder map[string]any
		kw     string
		to     string
	}
	var rewrites []rewrite
	g := refGuide{doc: doc, root: v}
	schemanorm.WalkDecoded(v, func(at schemanorm.Pointer, s any) bool {
		m, ok := s.(map[string]any)
		if !ok {
			return true
		}
		for _, kw := range refKeywords() {
			ref, ok := m[kw].(string)
			if !ok || !refNeedsRewrite(ref) {
				continue
			}
			to, err := g.rewriteRef(ref)
			if err != nil {
				refusal = &compiledSchema{pointer: string(at.Append(kw)), err: fmt.Errorf("%s %q %w", kw, ref, err)}
				return false
			}
			if to != ref {
				rewrites = append(rewrites, rewrite{m, kw, to})
			}
		}
		return true
	})
	if refusal != nil {
		return false, refusal
	}
	for _, r := range rewrites {
		r.holder[r.kw] = r.to
	}
	return len(rewrites) > 0, nil
}

// compilerSource returns the bytes of the schema for the compiler: raw
// itself when canonicalRefs changed nothing, else v written anew.
func compilerSource(raw []byte, v any, changed bool) ([]byte, error) {
	if !changed {
		return raw, nil
	}
	return json.Marshal(v)
}

// refGuide holds what rewriteRef needs to know of the whole document.
type refGuide struct {
	doc  *ojson.Value
	root any
	// baseKnown and baseIsRoot: whether every local reference is resolved
	// against the document's root, there being no "$id" or "id" below it.
	baseKnown, baseIsRoot bool
}

// errRootMember refuses "#/" when the root has a member "": jsonschema/v5
// reads any "#/" as the root, and no other fragment names that member.
var errRootMember = errors.New(`names the member "" of the root, which the validator cannot tell from the root itself`)

// rewriteRef returns the reference jsonschema/v5 is to be given for ref, a
// JSON pointer fragment refNeedsRewrite reports:
//
//   - ref itself when net/url refuses it (a bad percent escape), or when it
//     holds a backslash and the schema is not draft 4: the draft's
//     meta-schema then refuses it as not a "uri-reference", as it refuses
//     the schema the caller gave;
//   - unresolvableRef when RFC 6901 says it names nothing: a bad "~" escape,
//     or, in a document whose references all start at the root, "#/" with
//     no member "" or an array index "01" or "+1";
//   - otherwise its canonical form (schemanorm.CanonicalFragment).
//
// It fails with errRootMember for "#/" when the root has a member "".
func (g *refGuide) rewriteRef(ref string) (string, error) {
	if _, err := url.Parse(ref); err != nil {
		return ref, nil
	}
	if strings.Contains(ref, `\`) && !isDraft4Root(g.root) {
		return ref, nil
	}
	ptr, err := schemanorm.ParseFragment(ref)
	if err != nil {
		return unresolvableRef, nil
	}
	c := ptr.Fragment() // schemanorm.CanonicalFragment(ref)
	if (c != "#/" && !hasAtoiIndex(c)) || !g.resolvesFromRoot() {
		return c, nil
	}
	if _, ok := schemanorm.Resolve(g.doc, string(ptr)); !ok {
		return unresolvableRef, nil
	}
	if c == "#/" {
		return "", errRootMember
	}
	return c, nil
}

// resolvesFromRoot reports whether every local reference of the document
// is resolved against its root: no subschema below the root has an "$id" or
// an "id" (which jsonschema/v5 may take as the base of the references
// inside it).
func (g *refGuide) resolvesFromRoot() bool {
	if !g.baseKnown {
		g.baseKnown, g.baseIsRoot = true, true
		schemanorm.WalkDecoded(g.root, func(at schemanorm.Pointer, s any) bool {
			m, ok := s.(map[string]any)
			if !ok || at == "" {
				return true
			}
			for _, kw := range [...]string{"$id", "id"} {
				if _, has := m[kw].(string); has {
					g.baseIsRoot = false
				}
			}
			return g.baseIsRoot
		})
	}
	return g.baseIsRoot
}

// isDraft4Root reports whether the compiler reads the decoded schema v as
// draft 4, whose meta-schema says nothing of "$ref".
func isDraft4Root(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	s, _ := m["$schema"].(string)
	return draftURL(s) == "https://json-schema.org/draft-04/schema"
}
