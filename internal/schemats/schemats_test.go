package schemats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenTools are the tool schemas of the reference tests
// test_render_functions_with_parameters and test_browser_tool_only (the
// latter from the reference's built-in browser namespace), with the
// TypeScript that appears in their golden files.
var goldenTools = []struct {
	file, name, schema, want string
}{
	{
		"test_render_functions_with_parameters.txt", "get_current_weather",
		`{
			"type": "object",
			"properties": {
				"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
				"format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
			},
			"required": ["location"]
		}`,
		"{\n// The city and state, e.g. San Francisco, CA\nlocation: string,\nformat?: \"celsius\" | \"fahrenheit\", // default: celsius\n}",
	},
	{
		"test_render_functions_with_parameters.txt", "get_multiple_weathers",
		`{
			"type": "object",
			"properties": {
				"locations": {
					"type": "array",
					"items": {"type": "string"},
					"description": "List of city and state, e.g. [\"San Francisco, CA\", \"New York, NY\"]"
				},
				"format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
			},
			"required": ["locations"]
		}`,
		"{\n// List of city and state, e.g. [\"San Francisco, CA\", \"New York, NY\"]\nlocations: string[],\nformat?: \"celsius\" | \"fahrenheit\", // default: celsius\n}",
	},
	{
		"test_render_functions_with_parameters.txt", "kitchensink",
		`{
			"description": "params object",
			"type": "object",
			"properties": {
				"string": {"type": "string", "title": "STRING", "description": "A string", "examples": ["hello", "world"]},
				"string_nullable": {"type": "string", "nullable": true, "description": "A nullable string", "default": "the default"},
				"string_enum": {"type": "string", "enum": ["a", "b", "c"]},
				"oneof_string_or_number": {
					"oneOf": [
						{"type": "string", "default": "default_string_in_oneof"},
						{"type": "number", "description": "numbers can happen too"}
					],
					"description": "a oneof",
					"default": 20
				}
			}
		}`,
		"// params object\n{\n// STRING\n//\n// A string\n// Examples:\n// - \"hello\"\n// - \"world\"\nstring?: string,\n// A nullable string\nstring_nullable?: string | null, // default: \"the default\"\nstring_enum?: \"a\" | \"b\" | \"c\",\n// a oneof\n// default: 20\noneof_string_or_number?:\n | string // default: \"default_string_in_oneof\"\n | number // numbers can happen too\n,\n}",
	},
	{
		"test_browser_tool_only.txt", "search",
		`{
			"type": "object",
			"properties": {
				"query": {"type": "string"},
				"topn": {"type": "number", "default": 10},
				"source": {"type": "string"}
			},
			"required": ["query"]
		}`,
		"{\nquery: string,\ntopn?: number, // default: 10\nsource?: string,\n}",
	},
	{
		"test_browser_tool_only.txt", "open",
		`{
			"type": "object",
			"properties": {
				"id": {"type": ["number", "string"], "default": -1},
				"cursor": {"type": "number", "default": -1},
				"loc": {"type": "number", "default": -1},
				"num_lines": {"type": "number", "default": -1},
				"view_source": {"type": "boolean", "default": false},
				"source": {"type": "string"}
			}
		}`,
		"{\nid?: number | string, // default: -1\ncursor?: number, // default: -1\nloc?: number, // default: -1\nnum_lines?: number, // default: -1\nview_source?: boolean, // default: false\nsource?: string,\n}",
	},
	{
		"test_browser_tool_only.txt", "find",
		`{
			"type": "object",
			"properties": {
				"pattern": {"type": "string"},
				"cursor": {"type": "number", "default": -1}
			},
			"required": ["pattern"]
		}`,
		"{\npattern: string,\ncursor?: number, // default: -1\n}",
	},
}

func TestGoldenTools(t *testing.T) {
	for _, tc := range goldenTools {
		got, err := TypeScript([]byte(tc.schema))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

// TestGoldenFiles checks the renderings against the reference's golden
// files, read from the shared folder beside the repository.
func TestGoldenFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "reference", "test-data")
	for _, tc := range goldenTools {
		data, err := os.ReadFile(filepath.Join(dir, tc.file))
		if errors.Is(err, os.ErrNotExist) {
			t.Skipf("reference golden files not found in %s", dir)
		}
		require.NoError(t, err)
		got, err := TypeScript([]byte(tc.schema))
		require.NoError(t, err, tc.name)
		line := "type " + tc.name + " = (_: " + got + ") => any;"
		assert.True(t, strings.Contains(string(data), line), "%s: %s does not contain\n%s", tc.name, tc.file, line)
	}
}

// quirkTests pin one behaviour of the reference renderer each.
var quirkTests = []struct {
	name, schema, want string
}{
	// Scalars and fall-backs.
	{"string", `{"type":"string"}`, `string`},
	{"number", `{"type":"number"}`, `number`},
	{"integer", `{"type":"integer"}`, `number`},
	{"boolean", `{"type":"boolean"}`, `boolean`},
	{"unknown type", `{"type":"date"}`, `any`},
	{"type null", `{"type":"null"}`, `any`},
	{"no type", `{"description":"x"}`, `any`},
	{"type not a string", `{"type":5}`, `any`},
	{"empty schema", `{}`, `any`},
	{"schema is a string", `"object"`, `any`},
	{"schema is null", `null`, `any`},
	{"schema is an array", `[{"type":"string"}]`, `any`},
	{"last duplicate type wins", `{"type":"string","type":"number"}`, `number`},

	// "type" as an array.
	{"type array", `{"type":["integer","string","null"]}`, `number | string | null`},
	{"type array skips non-strings", `{"type":[1,"boolean",{"a":1}]}`, `boolean`},
	{"type array names kept verbatim", `{"type":["object","array"]}`, `object | array`},
	{"type array of non-strings", `{"type":[1,2],"oneOf":{}}`, `any`},
	{"type array empty", `{"type":[]}`, `any`},

	// String enums.
	{"enum", `{"type":"string","enum":["a","b"]}`, `"a" | "b"`},
	{"enum raw, not escaped", `{"type":"string","enum":["say \"hi\"","a\\b"]}`, `"say "hi"" | "a\b"`},
	{"enum skips non-strings", `{"type":"string","enum":[1,"x",null]}`, `"x"`},
	{"enum without strings", `{"type":"string","enum":[1,2]}`, `string`},
	{"enum empty", `{"type":"string","enum":[]}`, `string`},
	{"enum not an array", `{"type":"string","enum":"a"}`, `string`},
	{"enum ignored on numbers", `{"type":"number","enum":["a"]}`, `number`},

	// Arrays.
	{"array of strings", `{"type":"array","items":{"type":"string"}}`, `string[]`},
	{"array without items", `{"type":"array"}`, `Array<any>`},
	{"array of arrays", `{"type":"array","items":{"type":"array","items":{"type":"integer"}}}`, `number[][]`},
	{"array items null", `{"type":"array","items":null}`, `any[]`},
	{"array items empty", `{"type":"array","items":{}}`, `any[]`},
	{"array of enum", `{"type":"array","items":{"type":"string","enum":["x","y"]}}`, `"x" | "y"[]`},
	{"array of oneOf", `{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"number"}]}}`, "\n | string\n | number[]"},

	// Top-level oneOf.
	{
		"oneOf",
		`{"oneOf":[{"type":"string"},{"type":"number"}]}`,
		"\n | string\n | number",
	},
	{
		"oneOf wins over type",
		`{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"type":"boolean"}]}`,
		"\n | boolean",
	},
	{"oneOf empty", `{"oneOf":[]}`, ``},
	{"oneOf not an array", `{"oneOf":{"type":"string"},"type":"number"}`, `number`},
	{"oneOf not an array, no type", `{"oneOf":"x"}`, `any`},
	{
		"oneOf nullable",
		`{"oneOf":[{"type":"string","nullable":true},{"type":["string","null"],"nullable":true},{"type":"null","nullable":true},{"type":"number","nullable":"true"},{"type":"number","nullable":false}]}`,
		"\n | string | null\n | string | null\n | any | null\n | number\n | number",
	},
	{
		"oneOf comments",
		`{"oneOf":[{"type":"string","description":"text","default":"a \"b\""},{"type":"number","default":1.0},{"type":"boolean","description":"flag"},{"type":"integer","description":7,"default":null}]}`,
		"\n | string // text default: \"a \"b\"\"\n | number // default: 1.0\n | boolean // flag\n | number // default: null",
	},
	{
		// In a top-level oneOf an enum's string default is printed as JSON.
		"oneOf enum default",
		`{"oneOf":[{"type":"string","enum":["a\"b","c"],"default":"a\"b"},{"type":"string","enum":[],"default":"x"},{"type":"string","enum":[1],"default":"y"}]}`,
		"\n | \"a\"b\" | \"c\" // default: \"a\\\"b\"\n | string // default: \"x\"\n | string // default: \"y\"",
	},
	{
		"oneOf variants indent three more",
		`{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"oneOf":[{"type":"number"},{"type":"boolean"}]}]}`,
		"\n | {\n   a?: string,\n   }\n | \n    | number\n    | boolean",
	},

	// Objects.
	{"object without properties", `{"type":"object"}`, "{\n}"},
	{"object properties not an object", `{"type":"object","properties":[{"type":"string"}]}`, "{\n}"},
	{"object description", `{"type":"object","description":"Top","properties":{}}`, "// Top\n{\n}"},
	{"object description not a string", `{"type":"object","description":["Top"]}`, "{\n}"},
	{
		"required",
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"required":["c",1,"a","zz"]}`,
		"{\na: string,\nb?: string,\nc: string,\n}",
	},
	{
		"required not an array",
		`{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`,
		"{\na?: string,\n}",
	},
	{
		"document order and duplicate keys",
		`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"},"z":{"type":"boolean"}}}`,
		"{\nz?: boolean,\na?: number,\n}",
	},
	{
		"keys raw",
		`{"type":"object","properties":{"a b\"c\\d":{"type":"string"},"":{"type":"number"}}}`,
		"{\na b\"c\\d?: string,\n?: number,\n}",
	},
	{
		"property schema not an object",
		`{"type":"object","properties":{"a":true,"b":"string","c":null}}`,
		"{\na?: any,\nb?: any,\nc?: any,\n}",
	},
	{
		"nested object indentation and repeated description",
		`{"type":"object","properties":{"inner":{"type":"object","description":"Inner thing","properties":{"x":{"type":"integer"}},"required":["x"]}}}`,
		"{\n// Inner thing\ninner?:     // Inner thing\n{\n    x: number,\n    },\n}",
	},
	{
		"array of objects keeps the indent",
		`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}}}`,
		"{\nlist?: {\n    x: string,\n    }[],\n}",
	},
	{
		"array of oneOf in a property",
		`{"type":"object","properties":{"a":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"number"}]}}}}`,
		"{\na?: \n     | string\n     | number[],\n}",
	},

	// Property comments.
	{
		"title, description, examples",
		`{"type":"object","properties":{"a":{"type":"string","title":"T","description":"D","examples":["x",1,"y \"q\""]}}}`,
		"{\n// T\n//\n// D\n// Examples:\n// - \"x\"\n// - \"y \"q\"\"\na?: string,\n}",
	},
	{
		"examples header even without string examples",
		`{"type":"object","properties":{"a":{"type":"string","examples":[1,2]},"b":{"type":"string","examples":[]},"c":{"type":"string","examples":"x"}}}`,
		"{\n// Examples:\na?: string,\nb?: string,\nc?: string,\n}",
	},
	{
		"title and description must be strings",
		`{"type":"object","properties":{"a":{"type":"string","title":1,"description":{"x":1}}}}`,
		"{\na?: string,\n}",
	},
	{
		"multi-line description copied raw",
		`{"type":"object","properties":{"a":{"type":"string","description":"line1\nline2 \"q\""}}}`,
		"{\n// line1\nline2 \"q\"\na?: string,\n}",
	},

	// Property defaults.
	{
		"defaults",
		`{"type":"object","properties":{
			"s":{"type":"string","default":"say \"hi\"\\path"},
			"e":{"type":"string","enum":["x","y"],"default":"y"},
			"en":{"type":"string","enum":[1,2],"default":"z"},
			"ee":{"type":"string","enum":[],"default":"w"},
			"i":{"type":"integer","default":5},
			"neg":{"type":"integer","default":-5},
			"f":{"type":"number","default":1.0},
			"nz":{"type":"number","default":-0},
			"big":{"type":"number","default":1e21},
			"small":{"type":"number","default":0.000001},
			"b":{"type":"boolean","default":false},
			"n":{"type":"string","default":null},
			"o":{"type":"object","default":{"b":1,"a":[true,null,"x\"y\n"]}},
			"a":{"type":"array","default":[]}
		}}`,
		"{\n" +
			"s?: string, // default: \"say \"hi\"\\path\"\n" +
			"e?: \"x\" | \"y\", // default: y\n" +
			"en?: string, // default: z\n" +
			"ee?: string, // default: \"w\"\n" +
			"i?: number, // default: 5\n" +
			"neg?: number, // default: -5\n" +
			"f?: number, // default: 1.0\n" +
			"nz?: number, // default: -0.0\n" +
			"big?: number, // default: 1e21\n" +
			"small?: number, // default: 1e-6\n" +
			"b?: boolean, // default: false\n" +
			"n?: string, // default: null\n" +
			"o?: {\n    }, // default: {\"b\":1,\"a\":[true,null,\"x\\\"y\\n\"]}\n" +
			"a?: Array<any>, // default: []\n" +
			"}",
	},

	// Nullable properties.
	{
		"nullable",
		`{"type":"object","properties":{
			"a":{"type":"string","nullable":true},
			"b":{"type":["string","null"],"nullable":true},
			"c":{"type":"string","enum":["null","x"],"nullable":true},
			"d":{"type":"object","nullable":true,"properties":{"nullish":{"type":"string"}}},
			"e":{"type":"string","nullable":1},
			"f":{"type":"array","items":{"type":"string"},"nullable":true}
		}}`,
		"{\n" +
			"a?: string | null,\n" +
			"b?: string | null,\n" +
			"c?: \"null\" | \"x\",\n" +
			"d?: {\n    nullish?: string,\n    },\n" +
			"e?: string,\n" +
			"f?: string[] | null,\n" +
			"}",
	},

	// Property-level oneOf.
	{
		"oneOf property, description equal to the first variant's",
		`{"type":"object","properties":{"p":{"description":"same","oneOf":[{"type":"string","description":"same"},{"type":"number","description":"same"},{"type":"boolean","description":"other","default":true}]}},"required":["p"]}`,
		"{\np:\n | string\n | number\n | boolean // other default: true\n,\n}",
	},
	{
		"oneOf property, description above",
		`{"type":"object","properties":{"p":{"description":"prop","default":"d","oneOf":[{"type":"string","description":"first"},{"type":"string","enum":["x","y"],"description":"second","default":"x"},{"type":"integer","nullable":true,"default":5},{"type":"string","description":"prop"}]}}}`,
		"{\n// prop\n// default: \"d\"\np?:\n | string\n | \"x\" | \"y\" // second default: x\n | number | null // default: 5\n | string\n,\n}",
	},
	{
		"oneOf property without description",
		`{"type":"object","properties":{"p":{"type":"string","enum":["a"],"default":"a","oneOf":[{"type":"string","description":"first","default":"q\""},{"type":"object","properties":{"q":{"type":"string"}},"default":{"q":"r"}}]}}}`,
		"{\n// default: a\np?:\n | string // first default: \"q\"\"\n | {\n   q?: string,\n   } // default: {\"q\":\"r\"}\n,\n}",
	},
	{
		"oneOf property, first variant without description",
		`{"type":"object","properties":{"p":{"description":"prop","oneOf":[{"type":"string"},{"type":"number","description":"n"}]}}}`,
		"{\n// prop\np?:\n | string\n | number // n\n,\n}",
	},
	{
		"oneOf property, description not a string",
		`{"type":"object","properties":{"p":{"description":5,"oneOf":[{"type":"string","description":"s"}]}}}`,
		"{\np?:\n | string // s\n,\n}",
	},
	{
		"oneOf property with title and examples",
		`{"type":"object","properties":{"p":{"title":"T","description":"D","examples":["e"],"oneOf":[{"type":"string"}]}}}`,
		"{\n// T\n//\n// Examples:\n// - \"e\"\n// D\np?:\n | string\n,\n}",
	},
	{
		"oneOf property empty",
		`{"type":"object","properties":{"p":{"description":"d","default":1,"oneOf":[]}}}`,
		"{\n// d\n// default: 1\np?:\n,\n}",
	},
	{
		"oneOf property not an array hides description and default",
		`{"type":"object","properties":{"p":{"oneOf":{"type":"number"},"type":"string","description":"hidden","default":"hidden","title":"shown"}}}`,
		"{\n// shown\n//\np?: string,\n}",
	},
	{
		"oneOf property nested two levels",
		`{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"oneOf":[{"type":"string"},{"type":"object","properties":{"q":{"type":"string"}}}]}}}}}`,
		"{\no?: {\n    p?:\n     | string\n     | {\n       q?: string,\n       }\n    ,\n    },\n}",
	},
	{
		"oneOf property with nested top-level oneOf",
		`{"type":"object","properties":{"p":{"oneOf":[{"oneOf":[{"type":"string"},{"type":"number"}],"description":"inner"}]}}}`,
		"{\np?:\n | \n    | string\n    | number // inner\n,\n}",
	},
}

func TestQuirks(t *testing.T) {
	for _, tc := range quirkTests {
		got, err := TypeScript([]byte(tc.schema))
		if !assert.NoError(t, err, tc.name) {
			continue
		}
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"type":"string"} x`, `{"type":"\ud800"}`, `{"default":1e400}`, strings.Repeat("[", 200) + strings.Repeat("]", 200)} {
		got, err := TypeScript([]byte(in))
		if !assert.Error(t, err, "TypeScript(%q) = %q", in, got) {
			continue
		}
		assert.True(t, strings.HasPrefix(err.Error(), "ojson: "), "TypeScript(%q): error %q lacks the ojson: prefix", in, err)
	}
}

func TestAppendTypeScript(t *testing.T) {
	v, err := ojson.Parse([]byte(`{"type":"array","items":{"type":"boolean"}}`))
	require.NoError(t, err)
	assert.Equal(t, "x = boolean[]", string(AppendTypeScript([]byte("x = "), v)))
	assert.Equal(t, "any", string(AppendTypeScript(nil, nil)), "nil schema")
}

func TestLargeRequired(t *testing.T) {
	var props, req []string
	for i := 0; i < 40; i++ {
		k := string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		props = append(props, `"`+k+`":{"type":"number"}`)
		if i%2 == 0 {
			req = append(req, `"`+k+`"`)
		}
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	got, err := TypeScript([]byte(schema))
	require.NoError(t, err)
	assert.Contains(t, got, "\na: number,\nb?: number,\n")
	assert.Contains(t, got, "\nmx: number,\nnx?: number,\n}")
}

func TestAllocs(t *testing.T) {
	v, err := ojson.Parse([]byte(goldenTools[2].schema))
	require.NoError(t, err)
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendTypeScript(buf[:0], v)
	})
	assert.Zero(t, allocs, "AppendTypeScript into a large enough buffer: allocs")
}

func FuzzTypeScript(f *testing.F) {
	for _, tc := range quirkTests {
		f.Add([]byte(tc.schema))
	}
	for _, tc := range goldenTools {
		f.Add([]byte(tc.schema))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := TypeScript(data)
		if err == nil {
			return
		}
		_, perr := ojson.Parse(data)
		require.Error(t, perr, "TypeScript failed on input ojson accepts: %v", err)
	})
}

func BenchmarkTypeScript(b *testing.B) {
	schema := []byte(goldenTools[2].schema)
	b.ReportAllocs()
	b.SetBytes(int64(len(schema)))
	for b.Loop() {
		if _, err := TypeScript(schema); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendTypeScript(b *testing.B) {
	v, err := ojson.Parse([]byte(goldenTools[2].schema))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendTypeScript(buf[:0], v)
	}
}
