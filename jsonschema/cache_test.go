package jsonschema

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// orderTool returns a realistic tool schema of about 21 KB (an order form:
// nested objects, arrays, enums, formats, patterns, descriptions), made
// distinct by variant.
func orderTool(variant int) string {
	var b strings.Builder
	field := func(name, desc, schema string) string {
		return fmt.Sprintf(`%q:{"description":%q,%s}`, name, desc, schema)
	}
	desc := func(what string) string {
		return "The " + what + " of the order, as the customer entered it on the checkout page; it is validated by the backend before the order is placed, and shown back to the customer on the confirmation page and in the receipt email."
	}
	address := func(prefix string) string {
		return `{"type":"object","properties":{` + strings.Join([]string{
			field("street", desc(prefix+" street"), `"type":"string","minLength":1,"maxLength":200`),
			field("city", desc(prefix+" city"), `"type":"string","minLength":1,"maxLength":100`),
			field("postal_code", desc(prefix+" postal code"), `"type":"string","pattern":"^[A-Z0-9][A-Z0-9 -]{2,9}$"`),
			field("country", desc(prefix+" country"), `"type":"string","enum":["US","CA","GB","FR","DE","IT","ES","NL","BE","CH","AT","SE","NO","DK","FI","IE","PT","PL","JP","AU"]`),
			field("phone", desc(prefix+" phone number"), `"type":"string","pattern":"^\\+?[0-9 ().-]{6,20}$"`),
		}, ",") + `},"required":["street","city","country"],"additionalProperties":false}`
	}
	b.WriteString(`{"type":"object","description":"Places an order (variant ` + fmt.Sprint(variant) + `).","properties":{`)
	fields := []string{
		field("order_id", desc("identifier"), `"type":"string","pattern":"^[A-F0-9]{8}-[A-F0-9]{4}-[A-F0-9]{4}-[A-F0-9]{4}-[A-F0-9]{12}$"`),
		field("customer", desc("customer"), `"type":"object","properties":{`+strings.Join([]string{
			field("name", desc("customer name"), `"type":"string","minLength":1`),
			field("email", desc("customer email"), `"type":"string","format":"email"`),
			field("loyalty_id", desc("loyalty card"), `"type":["string","null"],"pattern":"^L[0-9]{9}$"`),
			field("segment", desc("customer segment"), `"type":"string","enum":["retail","business","wholesale","staff"]`),
		}, ",")+`},"required":["name","email"]`),
		field("shipping_address", desc("shipping address"), `"$ref":"#/$defs/address"`),
		field("billing_address", desc("billing address"), `"anyOf":[{"$ref":"#/$defs/address"},{"type":"null"}]`),
		field("items", desc("items"), `"type":"array","minItems":1,"maxItems":100,"items":{"type":"object","properties":{`+strings.Join([]string{
			field("sku", desc("item SKU"), `"type":"string","pattern":"^[A-Z]{3}-[0-9]{6}$"`),
			field("quantity", desc("item quantity"), `"type":"integer","minimum":1,"maximum":999`),
			field("unit_price", desc("item unit price"), `"type":"number","exclusiveMinimum":0,"multipleOf":0.01`),
			field("gift_wrap", desc("gift wrapping"), `"type":"boolean"`),
			field("options", desc("item options"), `"type":"object","additionalProperties":{"type":"string","maxLength":50}`),
		}, ",")+`},"required":["sku","quantity"],"additionalProperties":false}`),
		field("currency", desc("currency"), `"type":"string","enum":["USD","CAD","GBP","EUR","CHF","SEK","NOK","DKK","PLN","JPY","AUD"]`),
		field("payment", desc("payment"), `"oneOf":[`+
			`{"type":"object","properties":{"method":{"const":"card"},"token":{"type":"string","minLength":16},"installments":{"type":"integer","minimum":1,"maximum":12}},"required":["method","token"]},`+
			`{"type":"object","properties":{"method":{"const":"invoice"},"terms_days":{"type":"integer","enum":[15,30,45,60]}},"required":["method"]},`+
			`{"type":"object","properties":{"method":{"const":"voucher"},"code":{"type":"string","pattern":"^[A-Z0-9]{10}$"}},"required":["method","code"]}]`),
		field("delivery", desc("delivery"), `"type":"object","properties":{`+strings.Join([]string{
			field("speed", desc("delivery speed"), `"type":"string","enum":["standard","express","overnight","pickup"]`),
			field("date", desc("delivery date"), `"type":"string","format":"date"`),
			field("window", desc("delivery window"), `"type":"string","pattern":"^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$"`),
			field("instructions", desc("delivery instructions"), `"type":"string","maxLength":500`),
		}, ",")+`}`),
		field("coupons", desc("coupons"), `"type":"array","uniqueItems":true,"items":{"type":"string","pattern":"^[A-Z0-9]{4,12}$"}`),
		field("notes", desc("notes"), `"type":"string","maxLength":2000`),
		field("metadata", desc("metadata"), `"type":"object","patternProperties":{"^x-[a-z0-9-]+$":{"type":["string","number","boolean"]}},"additionalProperties":false`),
	}
	for i := range 40 {
		fields = append(fields, field(fmt.Sprintf("preference_%02d", i), desc(fmt.Sprintf("preference number %d", i)),
			`"type":"string","enum":["yes","no","ask","default"]`))
	}
	b.WriteString(strings.Join(fields, ","))
	b.WriteString(`},"required":["order_id","customer","shipping_address","items","currency","payment"],"additionalProperties":false,`)
	b.WriteString(`"$defs":{"address":` + address("address") + `}}`)
	return b.String()
}

// patternTool returns a tool schema of about 21 KB whose properties repeat
// a few patterns, as generated schemas do (identifiers, timestamps): each
// compiled copy of a pattern holds kilobytes.
func patternTool(variant int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"object","description":"Updates records (variant %d).","properties":{`, variant)
	for i := range 132 {
		if i > 0 {
			b.WriteByte(',')
		}
		pattern := `^[A-Fa-f\d]{24}$`
		if i%3 == 1 {
			pattern = `^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9][.][0-9]+([+-][0-2][0-9]:[0-5][0-9]|Z)$`
		}
		fmt.Fprintf(&b, `"field_%02d":{"type":"string","description":"Field %d of the record, an identifier or a timestamp.","pattern":%q}`, i, i, pattern)
	}
	b.WriteString(`}}`)
	return b.String()
}

const orderArguments = `{"order_id":"0123ABCD-0000-4444-8888-0123456789AB","customer":{"name":"Ada","email":"ada@example.com"},
	"shipping_address":{"street":"1 Main St","city":"Springfield","country":"US"},"items":[{"sku":"ABC-123456","quantity":2,"unit_price":9.99}],
	"currency":"USD","payment":{"method":"card","token":"tok_0123456789abcdef"}}`

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// fillCache validates arguments against 256 distinct schemas of gen
// through v and returns the growth of the heap, with v alive.
func fillCache(t *testing.T, v *Validator, gen func(int) string, args string) int64 {
	before := heapInUse()
	for i := range 256 {
		tool := harmony.NewToolDescription("place_order", "", json.RawMessage(gen(i)))
		require.NoError(t, v.ValidateToolArguments(tool, args))
	}
	after := heapInUse()
	runtime.KeepAlive(v)
	return after - before
}

// TestCacheHeapWithinBudget fills the cache with 256 distinct 21 KB tool
// schemas: the heap it holds stays under its budget. With a budget large
// enough to keep them all, the heap stays under what the cache accounts
// for, so that the accounting is an upper bound.
func TestCacheHeapWithinBudget(t *testing.T) {
	if testing.Short() || sample.Race {
		t.Skip("measures the heap")
	}
	for _, tc := range []struct {
		name string
		gen  func(int) string
		args string
	}{
		{"order form", orderTool, orderArguments},
		{"repeated patterns", patternTool, `{"field_00":"0123456789abcdef01234567"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.gen(0)
			require.InDelta(t, 21_000, len(raw), 2_000)
			one := New(nil).compile([]byte(raw))
			require.NoError(t, one.err)

			// The default budget, 32 MiB.
			v := New(nil)
			growth := fillCache(t, v, tc.gen, tc.args)
			t.Logf("default cache: %d of 256 schemas kept, %d bytes accounted, heap grew by %d bytes (%d bytes declared per schema of %d)",
				v.cache.Len(), v.cache.Bytes(), growth, one.size, len(raw))
			assert.LessOrEqual(t, v.cache.Bytes(), v.cache.Budget())
			// Margin: what the test itself leaves on the heap, and the
			// runtime's own bookkeeping, well under a MiB.
			assert.Less(t, growth, v.cache.Budget()+1<<20)

			// A cache large enough for all of them: the accounting is an
			// upper bound of the heap, and not a loose one.
			big := New(&Options{CacheBytes: 1 << 30})
			growth = fillCache(t, big, tc.gen, tc.args)
			t.Logf("large cache: %d schemas kept, %d bytes accounted, heap grew by %d bytes", big.cache.Len(), big.cache.Bytes(), growth)
			require.Equal(t, 256, big.cache.Len())
			assert.Less(t, growth, big.cache.Bytes())
			assert.Greater(t, growth, big.cache.Bytes()/3)
		})
	}
}

func TestSchemaStructSize(t *testing.T) {
	// The size class of the struct the estimate counts for each subschema.
	assert.GreaterOrEqual(t, int64(schemaStructSize), int64(unsafe.Sizeof(js.Schema{})))
}

// TestSizeEstimateUpperBound compares the estimate of single schemas, some
// of them heavy in regular expressions or in enums, with the heap they
// hold.
func TestSizeEstimateUpperBound(t *testing.T) {
	if testing.Short() || sample.Race {
		t.Skip("measures the heap")
	}
	for _, schema := range []string{
		weatherSchema,
		recursiveTree,
		`{"patternProperties":{"^[0-9a-zA-Z_-]{1,255}$":{"type":["string","number","boolean","null"]}}}`,
		`{"type":"string","pattern":"^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9][.][0-9]+([+-][0-2][0-9]:[0-5][0-9]|Z)$"}`,
		`{"properties":{"a":{"pattern":"\\pL{1000}"},"b":{"pattern":"\\pL{1000}"}}}`,
		`{"const":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{}}}}}}}},"enum":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"x","y",[1],{"k":null}]}`,
		defsTree(50),
	} {
		const n = 64
		keep := make([]*compiledSchema, n)
		before := heapInUse()
		for i := range keep {
			keep[i] = compileUncached([]byte(schema+strings.Repeat(" ", i)), DefaultMaxEvaluations)
		}
		growth := (heapInUse() - before) / n
		require.NoError(t, keep[0].err)
		assert.Less(t, growth, keep[0].size, "%.60s", schema)
		t.Logf("%.40q: %d bytes declared, %d held", schema, keep[0].size, growth)
		runtime.KeepAlive(keep)
	}
}
