package toolname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestResolveRecover pins the rule of the parser's recovery mode.
func TestResolveRecover(t *testing.T) {
	r := NewRule(Recover, []string{"get_weather", "user", "bad/name"}, []string{"container", ""})
	for _, c := range []struct {
		s        string
		fromTool bool
		want     Recipient
	}{
		{"functions.get_weather", false, Recipient{Function, "functions.get_weather", "get_weather"}},
		{"functions.undeclared", false, Recipient{Function, "functions.undeclared", "undeclared"}}, // (b)
		{"get_weather", false, Recipient{Function, "functions.get_weather", "get_weather"}},        // (a)
		{"functions.a.b", false, Recipient{}},
		{"functions.", false, Recipient{}},
		{"python", false, Recipient{Builtin, "python", "python"}},
		{"python.run", false, Recipient{}}, // (c)
		{"browser.search", false, Recipient{Builtin, "browser.search", "browser.search"}},
		{"browser", false, Recipient{}},     // (c)
		{"browser.a.b", false, Recipient{}}, // (c)
		{"container", false, Recipient{Builtin, "container", "container"}},
		{"container.exec", false, Recipient{Builtin, "container.exec", "container.exec"}},
		{"container.a.b", false, Recipient{}}, // (c)
		{"other.tool", false, Recipient{}},    // (b)
		{"assistant", true, Recipient{Assistant, "assistant", "assistant"}},
		{"assistant", false, Recipient{Address, "assistant", "assistant"}},
		{"user", false, Recipient{Address, "user", "user"}}, // a declared function, but an address
		{"all", false, Recipient{Address, "all", "all"}},
		{"final", false, Recipient{Address, "final", "final"}}, // (d)
		{"bad name", false, Recipient{}},
		{"bad/name", false, Recipient{}},
		{"", false, Recipient{}},
	} {
		got := r.Resolve(c.s, c.fromTool)
		assert.Equal(t, c.want, got, "Resolve(%q, %v)", c.s, c.fromTool)
		assert.Equal(t, c.want.Kind != None && c.want.Kind != Address, got.Valid(), "Resolve(%q, %v).Valid()", c.s, c.fromTool)
	}
}

// TestResolveCall pins the OpenAI layer's rule, with and without
// declarations.
func TestResolveCall(t *testing.T) {
	open := NewRule(Call, nil, nil)
	none := NewRule(Call, []string{}, nil)
	declared := NewRule(Call, []string{"get_weather"}, []string{"browser", "container", "ns.tool"})
	fn := func(name string) Recipient { return Recipient{Function, "functions." + name, name} }
	bi := func(s string) Recipient { return Recipient{Builtin, s, s} }
	for _, c := range []struct {
		s                   string
		open, none, declare Recipient
	}{
		{"functions.get_weather", fn("get_weather"), Recipient{}, fn("get_weather")},
		{"functions.other", fn("other"), Recipient{}, Recipient{}}, // (b)
		{"functions.a.b", Recipient{}, Recipient{}, Recipient{}},
		{"functions", Recipient{}, Recipient{}, Recipient{}},         // (c)
		{"get_weather", bi("get_weather"), Recipient{}, Recipient{}}, // (a)
		{"python", bi("python"), Recipient{}, Recipient{}},           // (b)
		{"browser", bi("browser"), Recipient{}, bi("browser")},       // (c)
		{"browser.search", bi("browser.search"), Recipient{}, bi("browser.search")},
		{"browser.a.b", bi("browser.a.b"), Recipient{}, bi("browser.a.b")}, // (c)
		{"container.exec", bi("container.exec"), Recipient{}, bi("container.exec")},
		{"ns.tool", bi("ns.tool"), Recipient{}, bi("ns.tool")},
		{"ns.other", bi("ns.other"), Recipient{}, Recipient{}},
		{"user", bi("user"), Recipient{}, Recipient{}}, // (d)
		{"all", Recipient{Address, "all", "all"}, Recipient{Address, "all", "all"}, Recipient{Address, "all", "all"}},
		{"bad name", Recipient{}, Recipient{}, Recipient{}},
		{"", Recipient{}, Recipient{}, Recipient{}},
	} {
		assert.Equal(t, c.open, open.Resolve(c.s, false), "nothing declared: Resolve(%q)", c.s)
		assert.Equal(t, c.none, none.Resolve(c.s, false), "no tools declared: Resolve(%q)", c.s)
		assert.Equal(t, c.declare, declared.Resolve(c.s, false), "declared: Resolve(%q)", c.s)
	}
}
