package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/golden"

	"github.com/go-harmony/harmony"
)

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// counter returns an IDGenerator that counts from 1.
func counter() func() string {
	n := 0
	return func() string { n++; return strconv.Itoa(n) }
}

// sentinelByCode maps RequestError codes back to their sentinels.
func sentinelByCode(code string) error {
	for err, c := range codes {
		if c == code {
			return err
		}
	}
	return nil
}

func marshalIndent(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return "marshal error: " + err.Error() + "\n"
	}
	return b.String()
}

func marshalLine(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return "marshal error: " + err.Error() + "\n"
	}
	return b.String()
}

// foldChunks concatenates the deltas of a chat stream into the message they
// describe, checking the chunk protocol on the way: the role first, each
// tool call introduced once with index, id, type and name, the finish reason
// on the last chunk with a choice only.
func foldChunks(chunks []ChatCompletionChunk) (ChatMessage, FinishReason, error) {
	var m ChatMessage
	var content, reasoning strings.Builder
	var finish FinishReason
	sawContent := false
	for i, c := range chunks {
		if c.Object != "chat.completion.chunk" {
			return m, "", fmt.Errorf("chunk %d: object %q", i, c.Object)
		}
		if len(c.Choices) == 0 {
			if c.Usage == nil || i != len(chunks)-1 {
				return m, "", fmt.Errorf("chunk %d: no choices and not the final usage chunk", i)
			}
			continue
		}
		if finish != "" {
			return m, "", fmt.Errorf("chunk %d after the finish reason", i)
		}
		d := c.Choices[0].Delta
		if i == 0 {
			if d.Role != "assistant" {
				return m, "", fmt.Errorf("first chunk has role %q", d.Role)
			}
			m.Role = d.Role
		} else if d.Role != "" {
			return m, "", fmt.Errorf("chunk %d repeats the role", i)
		}
		if d.Content != "" {
			sawContent = true
		}
		content.WriteString(d.Content)
		reasoning.WriteString(d.Reasoning)
		if d.ReasoningContent != "" {
			if d.Reasoning != "" {
				return m, "", fmt.Errorf("chunk %d has both reasoning fields", i)
			}
			reasoning.WriteString(d.ReasoningContent)
		}
		for _, tc := range d.ToolCalls {
			switch {
			case tc.ID != "":
				if tc.Index != len(m.ToolCalls) || tc.Type != "function" || tc.Function.Arguments != "" {
					return m, "", fmt.Errorf("chunk %d: bad first delta of tool call %+v", i, tc)
				}
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Type: tc.Type, Function: FunctionCall{Name: tc.Function.Name}})
			case tc.Index < 0 || tc.Index >= len(m.ToolCalls) || tc.Function.Name != "" || tc.Type != "":
				return m, "", fmt.Errorf("chunk %d: bad argument delta %+v", i, tc)
			default:
				m.ToolCalls[tc.Index].Function.Arguments += tc.Function.Arguments
			}
		}
		finish = c.Choices[0].FinishReason
	}
	if finish == "" {
		return m, "", errors.New("no chunk with a finish reason")
	}
	if sawContent || len(m.ToolCalls) == 0 {
		m.Content = TextContent(content.String())
	}
	m.Reasoning = reasoning.String()
	return m, finish, nil
}

// sameChatMessage compares a streamed message with a whole one; reasoning
// may be under either name in the whole one.
func sameChatMessage(streamed, whole ChatMessage) error {
	whole.Reasoning += whole.ReasoningContent
	whole.ReasoningContent = ""
	if !reflect.DeepEqual(streamed, whole) {
		return fmt.Errorf("streamed message\n%s differs from whole message\n%s", marshalIndent(streamed), marshalIndent(whole))
	}
	return nil
}

// foldEvents replays a Responses event stream, checking that sequence
// numbers count from 0, that every delta lands on the item and part it
// names, that each done event holds the concatenated deltas and that the
// final response holds the items of the done events. It returns the final
// response.
func foldEvents(events []ResponseEvent) (*Response, error) {
	items := []Item{}
	var texts []string
	open := map[int]bool{}
	var final *Response
	for i, e := range events {
		if e.SequenceNumber != i {
			return nil, fmt.Errorf("event %d has sequence_number %d", i, e.SequenceNumber)
		}
		if final != nil {
			return nil, fmt.Errorf("event %d after the final response", i)
		}
		idx := e.OutputIndex
		itemOK := func() error {
			if idx < 0 || idx >= len(items) || !open[idx] {
				return fmt.Errorf("event %d (%s): output_index %d is not an open item", i, e.Type, idx)
			}
			if e.Item == nil && e.ItemID != items[idx].ID {
				return fmt.Errorf("event %d (%s): item_id %q, want %q", i, e.Type, e.ItemID, items[idx].ID)
			}
			if e.ContentIndex != 0 {
				return fmt.Errorf("event %d: content_index %d", i, e.ContentIndex)
			}
			return nil
		}
		switch e.Type {
		case "response.created", "response.in_progress":
			if i > 1 || e.Response == nil || e.Response.Status != "in_progress" {
				return nil, fmt.Errorf("event %d: misplaced %s", i, e.Type)
			}
		case "response.output_item.added":
			if idx != len(items) || e.Item == nil {
				return nil, fmt.Errorf("event %d: item added at %d, want %d", i, idx, len(items))
			}
			items = append(items, *e.Item)
			texts = append(texts, "")
			open[idx] = true
		case "response.content_part.added":
			if err := itemOK(); err != nil {
				return nil, err
			}
			if e.Part == nil || e.Part.Text != "" {
				return nil, fmt.Errorf("event %d: part added with text", i)
			}
		case "response.output_text.delta", "response.reasoning_text.delta", "response.function_call_arguments.delta":
			if err := itemOK(); err != nil {
				return nil, err
			}
			want := map[string]string{"message": "response.output_text.delta", "reasoning": "response.reasoning_text.delta",
				"function_call": "response.function_call_arguments.delta"}[items[idx].Type]
			if e.Type != want || e.Delta == "" {
				return nil, fmt.Errorf("event %d: %s (delta %q) on a %s item", i, e.Type, e.Delta, items[idx].Type)
			}
			texts[idx] += e.Delta
		case "response.output_text.done", "response.reasoning_text.done":
			if err := itemOK(); err != nil {
				return nil, err
			}
			if e.Text != texts[idx] {
				return nil, fmt.Errorf("event %d: done text %q != deltas %q", i, e.Text, texts[idx])
			}
		case "response.function_call_arguments.done":
			if err := itemOK(); err != nil {
				return nil, err
			}
			if e.Arguments != texts[idx] {
				return nil, fmt.Errorf("event %d: done arguments %q != deltas %q", i, e.Arguments, texts[idx])
			}
		case "response.content_part.done":
			if err := itemOK(); err != nil {
				return nil, err
			}
			if e.Part == nil || e.Part.Text != texts[idx] {
				return nil, fmt.Errorf("event %d: part done with other text", i)
			}
		case "response.output_item.done":
			if err := itemOK(); err != nil {
				return nil, err
			}
			it := *e.Item
			if it.ID != items[idx].ID || itemText(&it) != texts[idx] {
				return nil, fmt.Errorf("event %d: item done with text %q, deltas %q", i, itemText(&it), texts[idx])
			}
			items[idx] = it
			open[idx] = false
		case "response.completed", "response.incomplete":
			final = e.Response
			if final == nil || len(open) != len(items) {
				return nil, fmt.Errorf("event %d: bad final event", i)
			}
			for j, o := range open {
				if o {
					return nil, fmt.Errorf("item %d never done", j)
				}
			}
			if got, want := marshalLine(final.Output), marshalLine(items); got != want {
				return nil, fmt.Errorf("final output\n%s differs from the done items\n%s", got, want)
			}
		default:
			return nil, fmt.Errorf("event %d: unknown type %q", i, e.Type)
		}
	}
	if final == nil {
		return nil, errors.New("no final event")
	}
	return final, nil
}

// itemText returns an output item's text: its one part's text, or a call's
// arguments.
func itemText(it *Item) string {
	if it.Type == "function_call" {
		return it.Arguments
	}
	if it.Content == nil {
		return ""
	}
	var sb strings.Builder
	for _, p := range it.Content.Parts {
		sb.WriteString(p.Text)
	}
	return sb.String()
}

// streamChat runs a ChatStreamConverter over tokens.
func streamChat(enc *harmony.Encoding, toks []harmony.Token, s Sampling, opts *ResponseOptions) ([]ChatCompletionChunk, error) {
	c, err := NewChatStreamConverter(enc, opts)
	if err != nil {
		return nil, err
	}
	var out []ChatCompletionChunk
	for _, t := range toks {
		chunks, err := c.Process(t)
		out = append(out, chunks...)
		if err != nil {
			return out, err
		}
	}
	chunks, err := c.Finish(s)
	return append(out, chunks...), err
}

// streamResponses runs a ResponsesStreamConverter over tokens.
func streamResponses(enc *harmony.Encoding, toks []harmony.Token, s Sampling, opts *ResponseOptions) ([]ResponseEvent, error) {
	c, err := NewResponsesStreamConverter(enc, opts)
	if err != nil {
		return nil, err
	}
	var out []ResponseEvent
	for _, t := range toks {
		events, err := c.Process(t)
		out = append(out, events...)
		if err != nil {
			return out, err
		}
	}
	events, err := c.Finish(s)
	return append(out, events...), err
}
