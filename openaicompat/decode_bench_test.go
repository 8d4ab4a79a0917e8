package openaicompat

import (
	"fmt"
	"strings"
	"testing"
)

// benchChatBody is a Chat Completions request of n messages (questions,
// tool calls and their results, answers in parts, text with escapes) and
// a tool with a schema.
func benchChatBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"gpt-oss-120b","messages":[{"role":"system","content":"You are a helpful assistant.\nAnswer briefly."}`)
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `,{"role":"user","content":"Question %d: what is the weather in \"Oslo\" today?\nPlease answer in celsius."}`, i)
		case 1:
			fmt.Fprintf(&b, `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\",\"unit\":\"celsius\"}"}}]}`, i)
		case 2:
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"call_%d","content":"{\"temperature\":-3.5,\"sky\":\"snow\"}"}`, i-1)
		case 3:
			fmt.Fprintf(&b, `,{"role":"assistant","content":[{"type":"text","text":"It is -3.5 °C and snowing in Oslo (%d)."}]}`, i)
		}
	}
	b.WriteString(`],"tools":[{"type":"function","function":{"name":"get_weather","description":"Get the current weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string","description":"The city, e.g. Oslo"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}}}],"temperature":0.7,"max_tokens":1024,"stream":true,"metadata":{"tenant":"a"}}`)
	return []byte(b.String())
}

// benchResponsesBody is a Responses request of n input items.
func benchResponsesBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"gpt-oss-120b","instructions":"Answer briefly.","input":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"type":"message","role":"user","content":[{"type":"input_text","text":"Question %d: the weather in \"Oslo\"?"}]}`, i)
		case 1:
			fmt.Fprintf(&b, `{"type":"function_call","call_id":"c%d","name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}`, i)
		case 2:
			fmt.Fprintf(&b, `{"type":"function_call_output","call_id":"c%d","output":"{\"temperature\":-3.5}"}`, i-1)
		case 3:
			fmt.Fprintf(&b, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It is -3.5 °C (%d).","annotations":[]}]}`, i)
		}
	}
	b.WriteString(`],"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"max_output_tokens":1024}`)
	return []byte(b.String())
}

// BenchmarkDecodeRequest decodes requests with DecodeRequest: its cost
// walk, then encoding/json.
func BenchmarkDecodeRequest(b *testing.B) {
	for _, bc := range []struct {
		name string
		chat bool
		body []byte
	}{
		{"chat/small", true, benchChatBody(4)},
		{"chat/large", true, benchChatBody(2000)},
		{"responses/small", false, benchResponsesBody(4)},
		{"responses/large", false, benchResponsesBody(2000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				var err error
				if bc.chat {
					var req ChatCompletionRequest
					err = DecodeRequest(bc.body, &req)
				} else {
					var req ResponsesRequest
					err = DecodeRequest(bc.body, &req)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCostWalk is DecodeRequest's walk alone, without the decoding.
func BenchmarkCostWalk(b *testing.B) {
	for _, bc := range []struct {
		name string
		sh   *shape
		body []byte
	}{
		{"chat", chatRequestShape, benchChatBody(2000)},
		{"responses", responsesRequestShape, benchResponsesBody(2000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				if _, _, _, err := walkRequest(bc.body, bc.sh, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
