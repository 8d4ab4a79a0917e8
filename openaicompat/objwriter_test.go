package openaicompat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandWrittenFields checks that the MarshalJSON methods written with
// objWriter for structs with JSON tags write every field: a field added to
// the struct and not to its method would be dropped without a word.
func TestHandWrittenFields(t *testing.T) {
	for _, v := range []any{
		&ChatMessage{Role: "assistant"},
		&ResponsesTool{Type: "function"},
	} {
		rv := reflect.ValueOf(v).Elem()
		fill(rv)
		data, err := json.Marshal(v)
		require.NoError(t, err)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &got))
		for i := 0; i < rv.NumField(); i++ {
			name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
			assert.Contains(t, got, name, "%s: %s.MarshalJSON leaves out %q: %s", rv.Type().Field(i).Name, rv.Type().Name(), name, data)
		}

	}
}

// fill sets every empty field of v, recursively, to a value that is not
// empty.
func fill(v reflect.Value) {
	if v.Kind() != reflect.Struct && !v.IsZero() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i))
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte("{}"))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	}
}
