package openaicompat

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/go-harmony/harmony/internal/jsonw"
)

// objWriter writes a JSON object member by member, in order, byte for
// byte as encoding/json would: strings, numbers and literals directly,
// other values through marshalJSON. It appends to b, which may hold the
// start of an enclosing value: an object inside another is a second
// objWriter on the first one's b, closed with end.
type objWriter struct {
	b      []byte
	err    error
	opened bool // the object's '{' is written
}

// key starts a member.
func (w *objWriter) key(k string) {
	w.sep()
	w.b = append(jsonw.AppendString(w.b, k), ':')
}

// str writes a string member.
func (w *objWriter) str(key, s string) {
	w.key(key)
	w.b = jsonw.AppendString(w.b, s)
}

// strOrNull writes a string member, null when s is nil.
func (w *objWriter) strOrNull(key string, s *string) {
	if s == nil {
		w.raw(key, "null")
		return
	}
	w.str(key, *s)
}

// int writes a number member.
func (w *objWriter) int(key string, n int) {
	w.key(key)
	w.b = strconv.AppendInt(w.b, int64(n), 10)
}

// raw writes a member whose value is the JSON text val: null, [], true...
func (w *objWriter) raw(key, val string) {
	w.key(key)
	w.b = append(w.b, val...)
}

// list writes a list member, [] when it is empty.
func (w *objWriter) list(key string, l []json.RawMessage) {
	if len(l) == 0 {
		w.raw(key, "[]")
		return
	}
	w.field(key, l)
}

// field writes a member of any value, by marshalJSON.
func (w *objWriter) field(key string, v any) {
	if w.err != nil {
		return
	}
	val, err := marshalJSON(v)
	if err != nil {
		w.err = err
		return
	}
	w.key(key)
	w.b = append(w.b, val...)
}

// merge appends the fields of v's own JSON object.
func (w *objWriter) merge(v any) {
	if w.err != nil {
		return
	}
	val, err := marshalJSON(v)
	if err != nil {
		w.err = err
		return
	}
	if inner := bytes.TrimSpace(val[1 : len(val)-1]); len(inner) > 0 {
		w.sep()
		w.b = append(w.b, inner...)
	}
}

func (w *objWriter) sep() {
	if w.opened {
		w.b = append(w.b, ',')
	} else {
		w.b = append(w.b, '{')
		w.opened = true
	}
}

// end closes the object and returns b with it.
func (w *objWriter) end() []byte {
	if !w.opened {
		return append(w.b, '{', '}')
	}
	return append(w.b, '}')
}

func (w *objWriter) bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return w.end(), nil
}
