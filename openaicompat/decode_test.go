package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probe is a body built to cost more decoded than its bytes: head, then
// elem repeated (joined by sep) until the body is about size bytes, then
// tail.
type probe struct {
	name       string
	chat       bool
	head, elem string
	sep, tail  string
	// refused: DecodeRequest must refuse it (at any size the tests use);
	// the others are refused or decoded within the bound.
	refused bool
	// param and index are the refusal's Param and MessageIndex, when
	// param is set.
	param string
	index int
}

// body builds the probe's body of about size bytes.
func (p probe) body(size int) []byte {
	var b bytes.Buffer
	b.WriteString(p.head)
	for i := 0; b.Len()+len(p.elem)+len(p.sep)+len(p.tail) <= size; i++ {
		if i > 0 {
			b.WriteString(p.sep)
		}
		b.WriteString(strings.ReplaceAll(p.elem, "#", fmt.Sprint(i)))
	}
	b.WriteString(p.tail)
	return b.Bytes()
}

// probes are the hostile bodies of issue 19 and their kin: many small
// elements, each of which costs a Go value much larger than its bytes,
// deep nesting, and text that decodes larger than it is written.
var probes = []probe{
	{"annotations", false, `{"input":[{"role":"assistant","content":[{"type":"output_text","text":"x","annotations":[`, `0`, `,`, `]}]}]}`, true, "input[0].content[0].annotations", 0},
	{"logprobs", false, `{"input":[{"role":"assistant","content":[{"type":"output_text","text":"x","logprobs":[`, `{}`, `,`, `]}]}]}`, true, "", 0},
	{"empty items", false, `{"input":[`, `{}`, `,`, `]}`, true, "input", -1},
	{"empty messages", true, `{"messages":[`, `{}`, `,`, `]}`, true, "messages", -1},
	{"messages with empty content", true, `{"messages":[`, `{"content":""}`, `,`, `]}`, false, "", 0},
	{"user messages with empty content", true, `{"messages":[`, `{"role":"user","content":""}`, `,`, `]}`, false, "", 0},
	{"empty content parts", true, `{"messages":[{"role":"user","content":[`, `{}`, `,`, `]}]}`, true, "messages[0].content", 0},
	{"empty input parts", false, `{"input":[{"role":"user","content":[`, `{}`, `,`, `]}]}`, true, "", 0},
	{"empty tool calls", true, `{"messages":[{"role":"assistant","tool_calls":[`, `{}`, `,`, `]}]}`, true, "messages[0].tool_calls", 0},
	{"empty summary parts", false, `{"input":[{"type":"reasoning","summary":[`, `{}`, `,`, `]}]}`, true, "input[0].summary", 0},
	{"empty chat tools", true, `{"messages":[],"tools":[`, `{}`, `,`, `]}`, false, "", 0},
	{"empty function tools", true, `{"messages":[],"tools":[`, `{"function":{}}`, `,`, `]}`, false, "", 0},
	{"empty responses tools", false, `{"tools":[`, `{}`, `,`, `]}`, true, "tools", -1},
	{"stop strings", true, `{"stop":[`, `""`, `,`, `]}`, false, "", 0},
	{"include strings", false, `{"include":[`, `""`, `,`, `]}`, false, "", 0},
	{"metadata", true, `{"metadata":{`, `"#":""`, `,`, `}}`, false, "", 0},
	{"null contents", true, `{"messages":[`, `{"content":null}`, `,`, `]}`, false, "", 0},
	{"arrays as parts", true, `{"messages":[{"role":"user","content":[`, `[]`, `,`, `]}]}`, true, "", 0},
	{"deep nesting, unknown field", true, `{"messages":[{"role":"user","content":"hi","x":`, `[`, ``, `}]}`, false, "", 0},
	{"deep nesting, parameters", true, `{"messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":`, `{"a":`, ``, `}}]}`, false, "", 0},
	{"deep nesting, content part", true, `{"messages":[{"role":"user","content":[{"type":"text","text":"a","x":`, `[`, ``, `}]}]}`, false, "", 0},
	{"deep nesting, input part", false, `{"input":[{"role":"user","content":[{"type":"input_text","text":"a","x":`, `{"a":`, ``, `}]}]}`, false, "", 0},
	{"escaped member names", true, `{"messages":[{"role":"user","content":"",`, `"\u0061":0`, `,`, `}]}`, false, "", 0},
	{"long number", true, `{"max_tokens":`, `1`, ``, `}`, false, "", 0},
	{"invalid UTF-8", true, `{"messages":[{"role":"user","content":"`, "\xff", ``, `"}]}`, false, "", 0},
	{"escapes", true, `{"messages":[{"role":"user","content":"`, `\u00e9`, ``, `"}]}`, false, "", 0},
	{"numbers in parameters", true, `{"messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"enum":[`, `0`, `,`, `]}}}]}`, false, "", 0},
	{"duplicate parameters", true, `{`, `"model":""`, `,`, `}`, false, "", 0},
}

// decodeAlloc returns the bytes allocated by one DecodeRequest of body.
func decodeAlloc(body []byte, chat bool) (uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var err error
	if chat {
		var req ChatCompletionRequest
		err = DecodeRequest(body, &req)
		runtime.KeepAlive(&req)
	} else {
		var req ResponsesRequest
		err = DecodeRequest(body, &req)
		runtime.KeepAlive(&req)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

var decodeReport = flag.Bool("decode-report", false, "TestDecodeBound logs what each probe and request fixture costs decoded")

// TestDecodeBound: each probe is refused before anything is decoded, or
// decoded within the bound, 16 times its length and 64 KiB; the bytes a
// decode allocates (runtime.MemStats.TotalAlloc, after a first decode
// of the same body has filled encoding/json's caches) are never more
// than the estimate walkRequest adds up, and 4 KiB for the decoder
// itself. The probes are of 8 MiB, the chatserver's largest body; 512
// KiB under -short and the race detector, which does not measure
// allocations. go test -run TestDecodeBound -v -decode-report logs the
// figures.
func TestDecodeBound(t *testing.T) {
	size := 8 << 20
	if sample.Sampled() {
		size = 512 << 10
	}
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			body := p.bodyOf(size)
			decodeAlloc(body, p.chat)
			n, err := decodeAlloc(body, p.chat)
			est := estimate(body, p.chat)
			report(t, body, n, est, err)
			checkBound(t, body, n, est, err, p.refused)
			if p.param != "" {
				var re *RequestError
				if assert.ErrorAs(t, err, &re, "want param %q, message %d", p.param, p.index) {
					assert.Equal(t, p.param, re.Param, "the refusal's Param")
					assert.Equal(t, p.index, re.MessageIndex, "the refusal's MessageIndex")
				}
			}
		})
	}
}

// report logs what decoding body cost, for -decode-report.
func report(t *testing.T, body []byte, n uint64, est int64, err error) {
	if !*decodeReport {
		return
	}
	msg := fmt.Sprint(err)
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	t.Logf("body %8d  allocated %10d (%5.1f x)  estimate %5.1f x  %s", len(body), n, float64(n)/float64(len(body)),
		float64(est)/float64(len(body)), msg)
}

// checkBound checks what one decode of body allocated (n), against the
// estimate est, the bound, and whether it was to be refused.
func checkBound(t *testing.T, body []byte, n uint64, est int64, err error, refused bool) {
	t.Helper()
	limit := uint64(decodeBytesPerByte*len(body) + decodeBytesFixed)
	if errors.Is(err, ErrRequestTooComplex) {
		status, resp := HTTPError(err)
		assert.Equal(t, 400, status, "refused with %+v", resp.Error)
		if assert.NotNil(t, resp.Error.Code, "refused with %+v", resp.Error) {
			assert.Equal(t, "request_too_complex", *resp.Error.Code, "refused with %+v", resp.Error)
		}
		assert.Equal(t, "invalid_request_error", resp.Error.Type, "refused with %+v", resp.Error)
		assert.Contains(t, resp.Error.Message, "too complex", "refused with %+v", resp.Error)
		if !sample.Race {
			assert.LessOrEqual(t, n, uint64(16<<10), "bytes allocated before the refusal: want it refused before decoding")
		}
		return
	}
	assert.False(t, refused, "decoded (%v), want it refused", err)
	if sample.Race {
		return
	}
	assert.LessOrEqual(t, n, limit, "a body of %d bytes: bytes allocated decoded, more than the bound", len(body))
	assert.LessOrEqual(t, int64(n), est+4<<10, "a body of %d bytes: bytes allocated decoded, more than its estimate %d: the costs in decode.go are too low", len(body), est)
}

// TestDecodeOrdinary: ordinary requests decode as they did before the
// bound, within their estimate: the fixtures, and large ones built of
// ordinary elements (tens of thousands of messages and items, 128 tools,
// a schema with an enum of a million numbers).
func TestDecodeOrdinary(t *testing.T) {
	type body struct {
		name string
		chat bool
		data []byte
	}
	var bodies []body
	files, fxs := requestFixtures(t)
	for i, fx := range fxs {
		bodies = append(bodies, body{filepath.Base(files[i]), fx.API == "chat", fx.Request})
	}
	n := 20000
	if sample.Sampled() {
		n = 2000
	}
	var chat, items, tools, enum strings.Builder
	for i := range n {
		if i > 0 {
			chat.WriteString(",")
			items.WriteString(",")
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&chat, `{"role":"user","content":"Question %d?"}`, i)
			fmt.Fprintf(&items, `{"role":"user","content":"Question %d?"}`, i)
		case 1:
			fmt.Fprintf(&chat, `{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"f","arguments":"{}"}}]}`, i)
			fmt.Fprintf(&items, `{"type":"function_call","call_id":"c%d","name":"f","arguments":"{}"}`, i)
		case 2:
			fmt.Fprintf(&chat, `{"role":"tool","tool_call_id":"c%d","content":"ok"}`, i-1)
			fmt.Fprintf(&items, `{"type":"function_call_output","call_id":"c%d","output":"ok"}`, i-1)
		case 3:
			fmt.Fprintf(&chat, `{"role":"assistant","content":[{"type":"text","text":"A%d."}]}`, i)
			fmt.Fprintf(&items, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A%d.","annotations":[]}]}`, i)
		}
	}
	for i := range 128 {
		if i > 0 {
			tools.WriteString(",")
		}
		fmt.Fprintf(&tools, `{"type":"function","function":{"name":"f%d","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}}`, i)
	}
	for i := range 1000000 {
		if i > 0 {
			enum.WriteString(",")
		}
		fmt.Fprint(&enum, i%10)
	}
	bodies = append(bodies,
		body{"long chat", true, []byte(`{"messages":[` + chat.String() + `],"tools":[` + tools.String() + `]}`)},
		body{"long input", false, []byte(`{"input":[` + items.String() + `]}`)},
		body{"enum of a million numbers", true, []byte(`{"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"enum":[` + enum.String() + `]}}}]}`)},
	)
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			decodeAlloc(b.data, b.chat)
			n, err := decodeAlloc(b.data, b.chat)
			est := estimate(b.data, b.chat)
			report(t, b.data, n, est, err)
			require.NoError(t, err)
			checkBound(t, b.data, n, est, err, false)
		})
	}
}

// decodeBefore is DecodeRequest as it was before the bound: a
// json.Decoder, then the parameters checked.
func decodeBefore[R ChatCompletionRequest | ResponsesRequest](data []byte, req *R) error {
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(req); err != nil {
		if err == io.EOF {
			return fmt.Errorf("openaicompat: %w: the body is empty", errBadJSON)
		}
		return fmt.Errorf("openaicompat: %w: %w", errBadJSON, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("openaicompat: %w: more after the request's JSON object", errBadJSON)
	}
	return decodeParams(data, req)
}

// TestDecodeAsBefore: DecodeRequest decodes what it did before the bound,
// and fails with the same errors: every fixture, every prefix of each
// (bodies cut short), and each with bytes after it or space before it, with member names
// escaped and in other cases, with values of other types.
func TestDecodeAsBefore(t *testing.T) {
	var bodies [][]byte
	var chat []bool
	add := func(b []byte, c bool) {
		bodies = append(bodies, b)
		chat = append(chat, c)
	}
	_, fxs := requestFixtures(t)
	for i, fx := range fxs {
		c := fx.API == "chat"
		add(fx.Request, c)
		for _, extra := range []string{"x", " {}", "\n", "]", "}"} {
			add(append(bytes.Clone(fx.Request), extra...), c)
		}
		for _, space := range []string{" ", "\n", "\r\n\t "} {
			add(append([]byte(space), fx.Request...), c)
		}
		step := 1
		if sample.Sampled() || i%4 != 0 {
			step = 7
		}
		for n := 0; n < len(fx.Request); n += step {
			add(fx.Request[:n], c)
		}
	}
	for _, s := range []string{
		``, ` `, `null`, `[]`, `"x"`, `5`, `{}`, `{"Messages":[{"ROLE":"user","Content":"Hi"}]}`,
		`{"m\u0065ssages":[{"r\u006fle":"user","content":"H\u00e9"}]}`, `{"messages":[{"role":"user","content":"a\u0000b\ud800"}]}`,
		`{"messages":"x"}`, `{"messages":[1,"x",null,[]]}`, `{"messages":[{"role":"user","content":5}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},7]}]}`, `{"stop":"x"}`, `{"stop":["a",null]}`, `{"stop":5}`,
		`{"tool_choice":"auto"}`, `{"tool_choice":"a\u0075to"}`, `{"tool_choice":{"type":"function","function":{"name":"f"}}}`,
		`{"max_tokens":1.5}`, `{"max_tokens":99999999999999999999999999999999999999}`, `{"stream":"yes"}`, `{"metadata":{"a":"b","a":"c"}}`,
		`{"metadata":{"a":1}}`, `{"modalities":["text"]}`, `{"modalities":["t\u0065xt","audio"]}`, `{"modalities":["audio",5]}`,
		`{"modalities":[null]}`, `{"modalities":"text"}`, `{"functions":[]}`, `{"functions":{ }}`, `{"functions":[{}]}`, `{"logit_bias":{"1":2}}`,
		`{"messages":[]} `, "\ufeff{}", `{"messages":[{"role":"user","content":"Hi"}],}`, `{"a":1,"a":2}`, `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}]}`,
		`{"input":"Hi","include":["x",""],"text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}}}`,
		`{"input":null}`, `{"input":5}`, `{"input":[{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"content":[{"type":"reasoning_text","text":"r"}]}]}`,
	} {
		add([]byte(s), true)
		add([]byte(s), false)
	}
	errs := 0
	defer func() { t.Logf("%d bodies, %d of them refused", len(bodies), errs) }()
	for i, b := range bodies {
		var got, want error
		if chat[i] {
			var r1, r2 ChatCompletionRequest
			got, want = DecodeRequest(b, &r1), decodeBefore(b, &r2)
			if got == nil && want == nil {
				assert.Equal(t, r2, r1, "%q: decoded", b)
			}
		} else {
			var r1, r2 ResponsesRequest
			got, want = DecodeRequest(b, &r1), decodeBefore(b, &r2)
			if got == nil && want == nil {
				assert.Equal(t, r2, r1, "%q: decoded", b)
			}
		}
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "%q: error", b)
		if want != nil {
			errs++
		}
	}
}

// bodyOf is the probe's body of about size bytes; a deep probe nests its
// element 9,000 times (encoding/json's limit is 10,000).
func (p probe) bodyOf(size int) []byte {
	if !strings.HasPrefix(p.name, "deep") {
		return p.body(size)
	}
	inner, closer := "1", "}"
	if p.elem == "[" {
		inner, closer = "", "]"
	}
	return []byte(p.head + strings.Repeat(p.elem, 9000) + inner + strings.Repeat(closer, 9000) + p.tail)
}

// estimate is the cost walkRequest adds up for body, without a limit.
func estimate(body []byte, chat bool) int64 {
	sh := responsesRequestShape
	if chat {
		sh = chatRequestShape
	}
	w := costWalk{data: body, limit: 1 << 62, counts: make([]int, sh.counts)}
	if err := w.value(sh); err != nil {
		return -1
	}
	return w.cost + depthCost*int64(w.max)
}

// FuzzDecodeRequest: DecodeRequest decodes what a json.Decoder decodes, and
// fails as it fails, but for the bodies it refuses as too complex.
func FuzzDecodeRequest(f *testing.F) {
	_, fxs := requestFixtures(f)
	for _, fx := range fxs {
		f.Add([]byte(fx.Request))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c1, c2 ChatCompletionRequest
		got, want := DecodeRequest(b, &c1), decodeBefore(b, &c2)
		if errors.Is(got, ErrRequestTooComplex) {
			return
		}
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "chat %q: error", b)
		if got == nil {
			assert.Equal(t, c2, c1, "chat %q: decoded", b)
		}
		var r1, r2 ResponsesRequest
		got, want = DecodeRequest(b, &r1), decodeBefore(b, &r2)
		if errors.Is(got, ErrRequestTooComplex) {
			return
		}
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "responses %q: error", b)
		if got == nil {
			assert.Equal(t, r2, r1, "responses %q: decoded", b)
		}

	})
}

// checkParams reads the top-level members of the JSON object data, in
// order, and returns the first error paramError gives: the parameters
// checked in a walk of their own, as DecodeRequest did before its cost
// walk checked them.
func checkParams(data []byte, params map[string]param, chat bool) error {
	w := costWalk{data: data}
	if w.peek() != '{' {
		return nil // null: the request decoded as if empty
	}
	w.i++
	if w.peek() == '}' {
		return nil
	}
	for {
		name, plain, err := w.str()
		if err == nil && !plain {
			name = w.unescape(name)
		}
		if err == nil {
			err = w.expect(':')
		}
		start := w.i
		if err == nil {
			w.peek()
			start = w.i
			err = w.skip()
		}
		if err != nil {
			return fmt.Errorf("openaicompat: %w: %w", errBadJSON, err)
		}
		if err := paramError(params, chat, name, data[start:w.i]); err != nil {
			return err
		}
		if w.peek() != ',' {
			return nil
		}
		w.i++
	}
}

// decodeParams is checkParams for the request type of req.
func decodeParams(data []byte, req any) error {
	switch req.(type) {
	case *ChatCompletionRequest:
		return checkParams(data, chatParams, true)
	case *ResponsesRequest:
		return checkParams(data, responsesParams, false)
	}
	return nil
}
