package schemanorm

import (
	"encoding/json"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/stretchr/testify/require"
)

func FuzzNormalize(f *testing.F) {
	for _, tc := range normalizeTests {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Normalize(data)
		if err != nil {
			return
		}
		require.True(t, json.Valid(out), "invalid JSON output %q", out)
		v, err := ojson.Parse(out)
		require.NoError(t, err, "output does not parse:\n%s", out)
		// Printed floats may be re-read differently (see ojson), so compare
		// against the output as re-read.
		want := ojson.AppendCompact(nil, v)
		again, err := Normalize(out)
		require.NoError(t, err, "second pass\nin:  %s\nout: %s", data, out)
		require.Equal(t, string(want), string(again), "not idempotent\nin: %s", data)
	})
}

// genSchema builds a schema from fuzz bytes out of the constructs the rules
// rewrite, with references to places that exist, places that do not, and
// places on the rewritten paths, so that the fuzzer explores cycles and
// frozen paths rather than JSON syntax.
type gen struct {
	b []byte
}

func (g *gen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return int(c)
}

var genRefs = []string{"#", "#/$defs/A", "#/$defs/B", "#/definitions/C", "#/properties/a", "#/properties/a/anyOf/0",
	"#/properties/a/oneOf/1", "#/allOf/0", "#/allOf/0/properties/x", "#/$defs/A/anyOf/0", "#/$defs/Missing", "#A", "other.json", "#/properties/b/items"}

func (g *gen) schema(depth int) string {
	if depth > 4 || len(g.b) == 0 {
		return []string{`{"type":"string"}`, `{"type":"null"}`, `true`, `{}`}[g.next()%4]
	}
	n := g.next()%5 + 1
	var parts []string
	for i := 0; i < n; i++ {
		switch g.next() % 16 {
		case 0:
			parts = append(parts, `"type":`+[]string{`"object"`, `"string"`, `["string","null"]`, `"null"`, `["integer","number","null"]`}[g.next()%5])
		case 1:
			parts = append(parts, `"properties":{"a":`+g.schema(depth+1)+`,"b":`+g.schema(depth+1)+`}`)
		case 2:
			parts = append(parts, `"anyOf":[`+g.schema(depth+1)+`,`+g.schema(depth+1)+`]`)
		case 3:
			parts = append(parts, `"oneOf":[`+g.schema(depth+1)+`,{"type":"null"}]`)
		case 4:
			parts = append(parts, `"allOf":[`+g.schema(depth+1)+`,`+g.schema(depth+1)+`]`)
		case 5:
			parts = append(parts, `"$ref":"`+genRefs[g.next()%len(genRefs)]+`"`)
		case 6:
			parts = append(parts, `"$defs":{"A":`+g.schema(depth+1)+`,"B":`+g.schema(depth+1)+`}`)
		case 7:
			parts = append(parts, `"definitions":{"C":`+g.schema(depth+1)+`}`)
		case 8:
			parts = append(parts, `"const":{"const":1.5,"anyOf":[]}`)
		case 9:
			parts = append(parts, `"items":`+g.schema(depth+1))
		case 10:
			parts = append(parts, `"required":["a","b"]`)
		case 11:
			parts = append(parts, `"description":"d","default":null`)
		case 12:
			parts = append(parts, `"nullable":false`)
		case 13:
			parts = append(parts, `"allOf":[`+g.schema(depth+1)+`]`)
		case 14:
			parts = append(parts, `"enum":[1,"x",null]`)
		case 15:
			parts = append(parts, `"$id":"x"`)
		}
	}
	s := "{"
	for i, p := range parts {
		if i > 0 {
			s += ","
		}
		s += p
	}
	return s + "}"
}

func FuzzNormalizeGenerated(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{3, 6, 5, 1, 5, 2, 1, 5, 3, 22, 5, 4})
	f.Add([]byte("\x04\x01\x05\x02\x05\x03\x06\x05\x01\x05\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		in := []byte(g.schema(0))
		require.True(t, json.Valid(in), "generator made invalid JSON %s", in)
		out, err := Normalize(in)
		if err != nil {
			return
		}
		again, err := Normalize(out)
		require.NoError(t, err, "second pass\nin:  %s\nout: %s", in, out)
		require.Equal(t, string(out), string(again), "not idempotent\nin: %s", in)
	})
}
