package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/jsonscan"
	"github.com/go-harmony/harmony/internal/ojson"
)

// This file decodes request bodies (DecodeRequest), and bounds what a
// body costs once decoded. A body's bytes are bounded by the server
// (http.MaxBytesReader), but not what they decode to: encoding/json makes
// a Go value of each element, and an element of two bytes ("{}," or "0,")
// becomes a struct of a hundred bytes or more, or a slice header and a
// copy, in a slice that grows by copying; an 8 MiB body of such elements decoded to hundreds of
// megabytes. Before decoding, DecodeRequest walks the body once, without
// decoding it, along the request type, and adds up what each value will
// cost encoding/json (and this package's UnmarshalJSON methods): its
// struct or slice element, its strings and raw copies, the growth of its
// slices, the errors of values of the wrong type. A body whose cost is
// over decodeBytesPerByte times its length plus decodeBytesFixed is
// refused with ErrRequestTooComplex before anything is decoded; the walk
// stops where the cost goes over, so the refusal costs no more than
// reading that far. The top-level lists (messages, input items as
// UnmarshalJSON reads them, tools, …) are given their length as capacity
// before they are decoded, so that they do not grow by copying.
//
// The costs are upper bounds of what encoding/json allocates (measured:
// TestDecodeBound checks, for hostile bodies and ordinary ones, that
// the bytes a decode allocates are no more than the walk's estimate), and
// ordinary requests cost a few times their length: the bound refuses only
// bodies made of many elements each much smaller than the value it
// becomes.

// errBadJSON marks DecodeRequest's errors: the body is not JSON, or not of
// the request's shape.
var errBadJSON = errors.New("invalid JSON body")

// DecodeRequest reads a request body (a [ChatCompletionRequest] or a
// [ResponsesRequest]) from data: one JSON object and nothing after it. A
// body that is not such JSON is an error that [HTTPError] answers with
// 400, code "invalid_json".
//
// Its top-level parameters are checked against the API's, as OpenAI
// checks them: one that OpenAI's published request schema does not have
// (CreateChatCompletionRequest, CreateResponse) is a [*RequestError]
// wrapping [ErrUnknownParameter], code "unknown_parameter", param its
// name, with OpenAI's message for each API ("Unrecognized request argument
// supplied: NAME"; "Unknown parameter: 'NAME'."). Each parameter of the
// schema is either a field of the request, or ignored because ignoring it
// changes nothing for the client (store on Chat Completions, service_tier,
// prompt_cache_key, safety_identifier, prediction, verbosity; on Responses
// stream_options and max_tool_calls), or accepted only with a value this
// package can honour, else refused with [ErrUnsupportedParameter] naming
// it: logprobs true, top_logprobs above 0, a logit_bias, an output
// modality other than text, audio, the deprecated functions and
// function_call, web_search_options, moderation (Chat Completions);
// background true, conversation, prompt, context_management, top_logprobs
// above 0, moderation (Responses). The one parameter outside OpenAI's
// schema that is accepted is Chat Completions' "reasoning", OpenRouter's
// spelling (see [ChatCompletionRequest]). Inside messages, tools and
// input items unknown fields are ignored, not refused: clients send the
// output of a response back as input, with fields a request has no use
// for. json.Unmarshal into the request ignores unknown parameters.
//
// What a body costs decoded is bounded by its length: a body whose values
// would take more than 16 times its bytes of memory, and 64 KiB more, once
// decoded (a list of millions of empty objects, each a Go struct of a
// hundred bytes; annotations of a million numbers, each a slice of its
// own) is refused before anything is decoded, with a [*RequestError]
// wrapping [ErrRequestTooComplex], param the list where the cost went
// over. The cost is added up from the body without decoding it, as
// encoding/json will allocate: the Go value of each element, strings and
// raw copies, the growth of lists, deep nesting. Requests whose elements
// have content cost a few times their length and are never refused;
// json.Unmarshal into the request has no such bound.
func DecodeRequest[R ChatCompletionRequest | ResponsesRequest](data []byte, req *R) error {
	sh, params, chat := chatRequestShape, chatParams, true
	if _, ok := any(req).(*ResponsesRequest); ok {
		sh, params, chat = responsesRequestShape, responsesParams, false
	}
	end, counts, paramErr, err := walkRequest(data, sh, params, chat)
	if errors.Is(err, ErrRequestTooComplex) {
		return err
	}
	if i := jsonscan.Space(data, 0); err != nil || i >= end || data[i] != '{' {
		// Not a JSON object: encoding/json says what is wrong.
		return decodeError(data, req)
	}
	presize(reflect.ValueOf(req).Elem(), sh, counts)
	if err := json.Unmarshal(data[:end], req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return decodeError(data, req)
		}
		return fmt.Errorf("openaicompat: %w: %w", errBadJSON, err)
	}
	if jsonscan.Space(data, end) != len(data) {
		return fmt.Errorf("openaicompat: %w: more after the request's JSON object", errBadJSON)
	}
	return paramErr
}

// decodeError returns the error of a body that is not one JSON object,
// as a json.Decoder reading it into req gives it. A body that starts as
// an object is read into nothing, for its syntax error: a json.Decoder
// reads the whole value before it decodes any of it, so that the error
// is the same.
func decodeError[R any](data []byte, req *R) error {
	d := json.NewDecoder(bytes.NewReader(data))
	var v any = req
	i := jsonscan.Space(data, 0)
	object := i < len(data) && data[i] == '{'
	if object {
		v = &struct{}{}
	}
	if err := d.Decode(v); err != nil {
		if err == io.EOF {
			return fmt.Errorf("openaicompat: %w: the body is empty", errBadJSON)
		}
		return fmt.Errorf("openaicompat: %w: %w", errBadJSON, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("openaicompat: %w: more after the request's JSON object", errBadJSON)
	}
	if object {
		// JSON that walkRequest could not read: never decoded unbounded.
		return fmt.Errorf("openaicompat: %w: the body could not be read", errBadJSON)
	}
	return nil // null: the request decoded as if empty, with no parameters
}

const (
	// decodeBytesPerByte and decodeBytesFixed bound the bytes a request
	// may cost decoded: decodeBytesPerByte times its body's length, plus
	// decodeBytesFixed.
	decodeBytesPerByte = 16
	decodeBytesFixed   = 64 << 10

	// maxNestingDepth is encoding/json's limit on nesting: a deeper body
	// is not JSON it can read.
	maxNestingDepth = 10000

	// What encoding/json allocates besides the values, as measured with
	// Go 1.26 (TestDecodeBound fails when it allocates more):
	// unmarshalCall for one json.Unmarshal call (its decodeState and
	// scanner) in an UnmarshalJSON method; typeError for a value of the
	// wrong type, an *UnmarshalTypeError whether or not it is the one
	// returned; mapEntry for each member of a map[string]string, its
	// share of the map's slots as the map grows.
	unmarshalCall = 256
	typeError     = 96
	mapEntry      = 160
	// depthCost is what each level of nesting costs the stack of a
	// json.Unmarshal's scanner, which grows by copying.
	depthCost = 32
)

// ErrRequestTooComplex: a request body that would cost more memory decoded
// than [DecodeRequest] allows for its length — 16 times its bytes and
// 64 KiB more — as a body of millions of empty objects or of numbers in a
// list would: each element becomes a Go value many times its size. Its
// code is "request_too_complex" and its param the path of the list where
// the cost went over. Ordinary requests, whose elements have content,
// cost a few times their length.
var ErrRequestTooComplex = errors.New("request too complex to decode")

// A shape is how encoding/json decodes a JSON value into a Go type, as
// far as its cost goes.
type shape struct {
	kind shapeKind
	// ptr is the size of what a pointer points to, allocated for any
	// value but null; 0 for a value that is not a pointer.
	ptr int64
	// elem and elemSize are a slice's or a map's elements, and the
	// elements of a textOrList's list.
	elem     *shape
	elemSize int64
	fields   []shapeField // a struct's
	// presize: DecodeRequest makes the slice with its length as capacity
	// before decoding (a top-level list).
	presize bool
	// counts is, for a request's struct, the length of the walk's table
	// of top-level list lengths: one past its highest field index.
	counts int
}

type shapeKind uint8

const (
	scalarShape     shapeKind = iota // bool or number
	stringShape                      // string
	rawShape                         // json.RawMessage: a copy of the value
	structShape                      // struct: its fields; other members are skipped
	sliceShape                       // slice of elem
	mapShape                         // map[string]elem
	textOrListShape                  // Content, ItemContent, ResponsesInput, StringList: unmarshalStringOrList
	choiceShape                      // ToolChoice, ResponsesToolChoice: a string or a small object
)

// A shapeField is a field of a struct: its JSON name, and its index for
// reflect.
type shapeField struct {
	name  string
	index int
	shape *shape
}

// field returns the field that encoding/json decodes the member key into:
// the field of that name, else one whose name is equal under Unicode case
// folding; nil when none (the member is skipped).
func (s *shape) field(key []byte) *shapeField {
	for i := range s.fields {
		if string(key) == s.fields[i].name {
			return &s.fields[i]
		}
	}
	for i := range s.fields {
		if bytes.EqualFold(key, []byte(s.fields[i].name)) {
			return &s.fields[i]
		}
	}
	return nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// customShape returns the shape of a type with an UnmarshalJSON method, or
// nil.
func customShape(t reflect.Type) *shape {
	switch t {
	case reflect.TypeFor[Content]():
		return textOrList(reflect.TypeFor[ContentPart]())
	case reflect.TypeFor[ItemContent]():
		return textOrList(reflect.TypeFor[ItemPart]())
	case reflect.TypeFor[ResponsesInput]():
		return textOrList(reflect.TypeFor[Item]())
	case reflect.TypeFor[StringList]():
		return textOrList(reflect.TypeFor[string]())
	case reflect.TypeFor[ToolChoice](), reflect.TypeFor[ResponsesToolChoice]():
		return &shape{kind: choiceShape}
	}
	return nil
}

func textOrList(elem reflect.Type) *shape {
	return &shape{kind: textOrListShape, elem: shapeOf(elem), elemSize: int64(elem.Size())}
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// shapeOf returns the shape of t, one of the types a request is made of.
// It panics on a type it does not know the cost of: a new field of a
// request must be given one (the package's tests build every shape).
func shapeOf(t reflect.Type) *shape {
	if t == rawMessageType {
		return &shape{kind: rawShape}
	}
	if s := customShape(t); s != nil {
		return s
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		panic("openaicompat: no decoding cost for " + t.String())
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := *shapeOf(t.Elem())
		s.ptr = int64(t.Elem().Size())
		return &s
	case reflect.String:
		return &shape{kind: stringShape}
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return &shape{kind: scalarShape}
	case reflect.Slice:
		return &shape{kind: sliceShape, elem: shapeOf(t.Elem()), elemSize: int64(t.Elem().Size())}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.String {
			break
		}
		return &shape{kind: mapShape, elem: shapeOf(t.Elem())}
	case reflect.Struct:
		s := &shape{kind: structShape}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields = append(s.fields, shapeField{name: name, index: i, shape: shapeOf(f.Type)})
		}
		return s
	}
	panic("openaicompat: no decoding cost for " + t.String())
}

// requestShape is shapeOf for a request type, its top-level lists
// presized.
func requestShape(t reflect.Type) *shape {
	s := shapeOf(t)
	for i := range s.fields {
		if f := s.fields[i].shape; f.kind == sliceShape && f.ptr == 0 {
			c := *f
			c.presize = true
			s.fields[i].shape = &c
		}
		s.counts = max(s.counts, s.fields[i].index+1)
	}
	return s
}

var (
	chatRequestShape      = requestShape(reflect.TypeFor[ChatCompletionRequest]())
	responsesRequestShape = requestShape(reflect.TypeFor[ResponsesRequest]())
)

// alloc is an upper bound of what an allocation of n bytes takes: its
// size class, or its pages.
func alloc(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if n > 32<<10 {
		return n + 8<<10
	}
	return n + n/8 + 16
}

// nextCap is the capacity append gives a slice of capacity c that needs
// one more element (runtime.nextslicecap).
func nextCap(c int64) int64 {
	switch {
	case c == 0:
		return 1
	case c < 256:
		return 2 * c
	}
	return c + (c+3*256)/4
}

var (
	errMalformed = errors.New("openaicompat: malformed JSON")
	errTooCostly = errors.New("openaicompat: request too costly")
)

// pathStep is a step of the path to a value: a member's name, or an
// element's index when name is "".
type pathStep struct {
	name  string
	index int
}

// costWalk walks a body along a shape, adding up what decoding it costs.
type costWalk struct {
	data        []byte
	i           int
	cost, limit int64
	depth, max  int // the current and the deepest nesting

	path []pathStep
	// over is the path of the list, or the value, where the cost went
	// over the limit.
	over []pathStep

	// counts are the lengths of the top-level struct's lists, by field,
	// the largest when a list is given twice.
	counts []int

	// params are the request's parameters, chat whether it is Chat
	// Completions: the members of the request's object are checked as
	// they are walked, and paramErr is the first one unknown or refused
	// (see paramError), returned once the request has decoded.
	params   map[string]param
	chat     bool
	paramErr error
}

// charge adds n to the cost: errTooCostly, and the path, when it goes
// over the limit.
func (w *costWalk) charge(n int64) error {
	w.cost += n
	if w.cost <= w.limit {
		return nil
	}
	over := w.path
	if len(over) > 0 && over[len(over)-1].name == "" {
		over = over[:len(over)-1] // the list, not its element
	}
	w.over = append([]pathStep(nil), over...)
	return errTooCostly
}

// pathParam writes a path as a request's param: messages[0].content.
func pathParam(path []pathStep) string {
	var b strings.Builder
	for _, s := range path {
		switch {
		case s.name == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case b.Len() > 0:
			b.WriteString("." + s.name)
		default:
			b.WriteString(s.name)
		}
	}
	return b.String()
}

// peek returns the next byte after whitespace, or 0 at the end.
func (w *costWalk) peek() byte {
	w.i = jsonscan.Space(w.data, w.i)
	if w.i < len(w.data) {
		return w.data[w.i]
	}
	return 0
}

// expect consumes c, after whitespace.
func (w *costWalk) expect(c byte) error {
	if w.peek() != c {
		return errMalformed
	}
	w.i++
	return nil
}

func (w *costWalk) open() error {
	w.i++
	w.depth++
	if w.depth > maxNestingDepth {
		return errMalformed
	}
	w.max = max(w.max, w.depth)
	return nil
}

// str reads a string: its bytes without the quotes, whether it is plain
// (no escapes, valid UTF-8: encoding/json copies it as it is).
func (w *costWalk) str() (s []byte, plain bool, err error) {
	w.peek()
	end, escaped, ok := jsonscan.String(w.data, w.i)
	if !ok {
		return nil, false, errMalformed
	}
	s, w.i = w.data[w.i+1:end-1], end
	return s, !escaped && utf8.Valid(s), nil
}

// scalar reads a number or a literal, and returns its length.
func (w *costWalk) scalar() (int, error) {
	var end int
	ok := false
	if w.i < len(w.data) {
		if c := w.data[w.i]; c == '-' || '0' <= c && c <= '9' {
			end, ok = jsonscan.Number(w.data, w.i)
		} else {
			end, ok = jsonscan.Literal(w.data, w.i)
		}
	}
	if !ok {
		return 0, errMalformed
	}
	n := end - w.i
	w.i = end
	return n, nil
}

// skip reads a value that is decoded into nothing.
func (w *costWalk) skip() error {
	w.peek()
	end, depth, ok := jsonscan.Skip(w.data, w.i, maxNestingDepth-w.depth)
	if !ok {
		return errMalformed
	}
	w.i = end
	w.max = max(w.max, w.depth+depth)
	return nil
}

// stringCost is what decoding a JSON string of the given bytes into a Go
// string costs: a copy, with a buffer first when it has escapes, and up
// to three bytes for each invalid one.
func stringCost(s []byte, plain bool) int64 {
	n := int64(len(s))
	switch {
	case n == 0:
		return 0
	case plain:
		return alloc(n)
	case utf8.Valid(s):
		return 2*alloc(n) + 16
	}
	return 12*n + 64
}

// value walks a value decoded into sh.
func (w *costWalk) value(sh *shape) error {
	c := w.peek()
	end, null := 0, false
	if c == 'n' {
		end, null = jsonscan.Literal(w.data, w.i)
	}
	if null {
		w.i = end
		if sh.ptr == 0 && (sh.kind == textOrListShape || sh.kind == choiceShape) {
			return w.charge(unmarshalCall) // UnmarshalJSON("null")
		}
		if sh.kind == rawShape {
			return w.charge(alloc(4))
		}
		return nil
	}
	if err := w.charge(alloc(sh.ptr)); err != nil {
		return err
	}
	switch sh.kind {
	case textOrListShape:
		return w.textOrList(sh)
	case choiceShape, rawShape:
		start, depth := w.i, w.max
		w.max = w.depth
		if err := w.skip(); err != nil {
			return err
		}
		n := int64(w.i - start)
		inner := int64(w.max - w.depth)
		w.max = max(w.max, depth)
		if sh.kind == rawShape {
			return w.charge(alloc(n))
		}
		return w.charge(unmarshalCall + 4*n + depthCost*inner)
	}
	switch c {
	case '{':
		switch sh.kind {
		case structShape:
			return w.object(sh)
		case mapShape:
			return w.mapObject(sh)
		}
	case '[':
		if sh.kind == sliceShape {
			_, err := w.array(sh)
			return err
		}
	case '"':
		if sh.kind == stringShape {
			s, plain, err := w.str()
			if err != nil {
				return err
			}
			return w.charge(stringCost(s, plain))
		}
	default:
		if sh.kind == scalarShape {
			n, err := w.scalar()
			if err != nil || n <= 32 {
				return err
			}
			// strconv's copy of a long number, and the error of one out
			// of range, which quotes it.
			return w.charge(8*alloc(int64(n)) + typeError)
		}
	}
	// A value of the wrong type: skipped, and an error made.
	if err := w.skip(); err != nil {
		return err
	}
	return w.charge(typeError)
}

// begin opens the object or list at the next byte, whose end is closing:
// false when it is empty (and closed).
func (w *costWalk) begin(closing byte) (bool, error) {
	if err := w.open(); err != nil {
		return false, err
	}
	if w.peek() == closing {
		w.i++
		w.depth--
		return false, nil
	}
	return true, nil
}

// next reads what follows a member or an element of an object or list
// whose end is closing: true after a comma, false after its end (and it is
// closed).
func (w *costWalk) next(closing byte) (bool, error) {
	switch w.peek() {
	case ',':
		w.i++
		return true, nil
	case closing:
		w.i++
		w.depth--
		return false, nil
	}
	return false, errMalformed
}

// object walks an object decoded into the struct sh.
func (w *costWalk) object(sh *shape) error {
	more, err := w.begin('}')
	for more && err == nil {
		if err = w.member(sh); err == nil {
			more, err = w.next('}')
		}
	}
	return err
}

// member walks a member of an object decoded into the struct sh; of the
// request's own object, it checks the parameter too (see params).
func (w *costWalk) member(sh *shape) error {
	key, plain, err := w.str()
	if err != nil {
		return err
	}
	if !plain {
		key = w.unescape(key)
		if err := w.charge(2 * alloc(int64(len(key))+8)); err != nil {
			return err
		}
	}
	if err := w.expect(':'); err != nil {
		return err
	}
	top := w.params != nil && w.depth == 1
	w.peek()
	start := w.i
	if err := w.memberValue(sh.field(key)); err != nil || !top || w.paramErr != nil {
		return err
	}
	w.paramErr = paramError(w.params, w.chat, key, w.data[start:w.i])
	return nil
}

// memberValue walks the value of a member decoded into f, or skipped when
// f is nil.
func (w *costWalk) memberValue(f *shapeField) error {
	if f == nil {
		return w.skip()
	}
	w.path = append(w.path, pathStep{name: f.name})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	if f.shape.presize && w.peek() == '[' {
		n, err := w.array(f.shape)
		if w.counts != nil {
			w.counts[f.index] = max(w.counts[f.index], n)
		}
		return err
	}
	return w.value(f.shape)
}

// mapObject walks an object decoded into the map sh.
func (w *costWalk) mapObject(sh *shape) error {
	more, err := w.begin('}')
	for more && err == nil {
		var key []byte
		var plain bool
		if key, plain, err = w.str(); err != nil {
			break
		}
		if err = w.charge(mapEntry + stringCost(key, plain)); err != nil {
			break
		}
		if err = w.expect(':'); err != nil {
			break
		}
		if err = w.value(sh.elem); err == nil {
			more, err = w.next('}')
		}
	}
	return err
}

// array walks a list decoded into the slice sh, and returns its length.
// A slice that is not presized grows as append grows it; each capacity
// is an allocation.
func (w *costWalk) array(sh *shape) (int, error) {
	more, err := w.begin(']')
	if !more || err != nil {
		return 0, err
	}
	n, capacity := 0, int64(0)
	w.path = append(w.path, pathStep{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for more {
		if sh.presize {
			err = w.charge(sh.elemSize + sh.elemSize/8)
		} else if int64(n) == capacity {
			capacity = nextCap(capacity)
			err = w.charge(alloc(capacity * sh.elemSize))
		}
		if err != nil {
			return n, err
		}
		w.path[len(w.path)-1].index = n
		if err := w.value(sh.elem); err != nil {
			return n, err
		}
		n++
		if more, err = w.next(']'); err != nil {
			return n, err
		}
	}
	return n, w.charge(16)
}

// textOrList walks a value read by unmarshalStringOrList (or
// StringList.UnmarshalJSON): a plain string is copied; another string is
// charged what json.Unmarshal would cost, though unquote mostly decodes
// it for less; anything else goes through json.Unmarshal, a list
// presized.
func (w *costWalk) textOrList(sh *shape) error {
	switch w.peek() {
	case '"':
		s, plain, err := w.str()
		if err != nil {
			return err
		}
		if plain {
			return w.charge(stringCost(s, true))
		}
		return w.charge(unmarshalCall + stringCost(s, false))
	case '[':
		depth := w.max
		w.max = w.depth
		base := w.depth
		err := w.charge(unmarshalCall)
		if err == nil {
			list := *sh
			list.kind, list.presize, list.ptr = sliceShape, true, 0
			_, err = w.array(&list)
		}
		inner := int64(w.max - base)
		w.max = max(w.max, depth)
		if err != nil {
			return err
		}
		return w.charge(depthCost * inner)
	}
	// Refused by json.Unmarshal.
	depth := w.max
	w.max = w.depth
	base := w.depth
	if err := w.skip(); err != nil {
		return err
	}
	inner := int64(w.max - base)
	w.max = max(w.max, depth)
	return w.charge(unmarshalCall + typeError + depthCost*inner)
}

// unescape returns the JSON string s unescaped, as encoding/json reads a
// member name (invalid UTF-8 and lone surrogates become U+FFFD): s is the
// string str has just read, without its quotes. JSON that encoding/json
// refuses is returned as it is.
func (w *costWalk) unescape(s []byte) []byte {
	var k string
	if unquote(w.data[w.i-len(s)-2:w.i], &k) != nil {
		return s
	}
	return []byte(k)
}

// walkRequest walks the request body data along sh, with the cost limit
// of its length, and checks its parameters against params (chat: of Chat
// Completions). It returns where the request's JSON value ends, the
// lengths of its top-level lists by field, and paramErr, the first
// parameter unknown or refused; err is errMalformed when data does not
// start with JSON that encoding/json reads, a *RequestError wrapping
// ErrRequestTooComplex when it costs too much.
func walkRequest(data []byte, sh *shape, params map[string]param, chat bool) (end int, counts []int, paramErr, err error) {
	w := costWalk{data: data, limit: decodeBytesPerByte*int64(len(data)) + decodeBytesFixed, params: params, chat: chat}
	w.counts = make([]int, sh.counts)
	err = w.value(sh)
	if err == nil {
		err = w.charge(depthCost * int64(w.max))
	}
	if errors.Is(err, errTooCostly) {
		index := -1 // a message's or an input item's, when the list is in one
		if p := w.over; len(p) >= 3 && (p[0].name == "messages" || p[0].name == "input") && p[1].name == "" {
			index = p[1].index
		}
		return 0, nil, nil, reqErr(index, pathParam(w.over), ErrRequestTooComplex,
			"decoding it would take more than %d bytes of memory (%d times its %d bytes, and %d): the list here has too many elements, each too small for what it costs decoded",
			w.limit, decodeBytesPerByte, len(data), decodeBytesFixed)
	}
	return w.i, w.counts, w.paramErr, err
}

// presize gives the top-level lists of the request v points to their
// length as capacity, so that decoding does not grow them.
func presize(v reflect.Value, sh *shape, counts []int) {
	for _, f := range sh.fields {
		if n := counts[f.index]; n > 0 && f.shape.presize {
			fv := v.Field(f.index)
			fv.Set(reflect.MakeSlice(fv.Type(), 0, n))
		}
	}
}

// countElements returns the number of elements of the JSON list data, or
// 0 when data is not one.
func countElements(data []byte) int {
	w := costWalk{data: data}
	if w.peek() != '[' {
		return 0
	}
	n := 0
	more, err := w.begin(']')
	for more && err == nil {
		if w.skip() != nil {
			return n
		}
		n++
		more, err = w.next(']')
	}
	return n
}

// unquote decodes the JSON string literal d into *s, as encoding/json
// does (d is what it has validated, given to an UnmarshalJSON method):
// with ojson.UnquoteStd, and encoding/json itself for what that leaves
// (invalid UTF-8).
func unquote(d []byte, s *string) error {
	if u, ok := ojson.UnquoteStd(d); ok {
		*s = u
		return nil
	}
	return json.Unmarshal(d, s)
}
