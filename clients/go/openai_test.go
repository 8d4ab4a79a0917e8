// Package clients checks examples/chatserver with the official OpenAI Go
// SDK, github.com/openai/openai-go/v3: Chat Completions and Responses, plain
// and streamed, with a tool loop, and the reasoning, which the SDK has no
// typed field for in Chat Completions: it is read from the raw JSON
// (JSON.ExtraFields) and sent back as an extra field.
package clients

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describe says what an error of the SDK carries: for an *openai.Error, the
// status and the body the server sent; "" for no error (it is the message
// of require.NoError, written before the error is looked at).
func describe(err error) string {
	if err == nil {
		return ""
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Sprintf("%d %s: %s", apiErr.StatusCode, apiErr.Request.URL.Path, apiErr.RawJSON())
	}
	return err.Error()
}

func client(s *server) *openai.Client { return clientWithKey(s, "sk-not-checked") }

// clientWithKey is a client that sends the API key key.
func clientWithKey(s *server, key string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(s.BaseURL), option.WithAPIKey(key), option.WithMaxRetries(0))
	return &c
}

// extraString reads a string field the SDK does not know, such as
// "reasoning", from the raw JSON it kept.
func extraString(t *testing.T, fields map[string]respjson.Field, name string) string {
	t.Helper()
	f, ok := fields[name]
	if !ok || !f.Valid() && f.Raw() == "" {
		return ""
	}
	var s string
	assert.NoError(t, json.Unmarshal([]byte(f.Raw()), &s), "%s: not a JSON string: %s", name, f.Raw())
	return s
}

func checkChatUsage(t *testing.T, u openai.CompletionUsage, want usage, what string) {
	t.Helper()
	eq(t, u.PromptTokens, want.Prompt, what+": usage.prompt_tokens")
	eq(t, u.CompletionTokens, want.Completion, what+": usage.completion_tokens")
	eq(t, u.TotalTokens, want.Prompt+want.Completion, what+": usage.total_tokens")
	eq(t, u.CompletionTokensDetails.ReasoningTokens, want.Reasoning, what+": usage.completion_tokens_details.reasoning_tokens")
	assert.True(t, want.Reasoning > 0 && want.Reasoning < want.Completion, "%s: want 0 < reasoning tokens < completion tokens: %+v", what, want)
}

var chatTools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("Current weather of a city"),
	Parameters:  weatherParams,
})}

func TestChatCompletions(t *testing.T) {
	ctx := context.Background()

	t.Run("plain/reasoning", func(t *testing.T) {
		s := startServer(t, plain)
		r, err := client(s).Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:           model,
			Messages:        []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
			ReasoningEffort: shared.ReasoningEffortLow,
		})
		require.NoError(t, err, describe(err))
		require.Len(t, r.Choices, 1, "choices")
		m := r.Choices[0].Message
		eq(t, r.Model, model, "model")
		eq(t, m.Content, answer, "message.content")
		eq(t, extraString(t, m.JSON.ExtraFields, "reasoning"), reasoning, "message.reasoning (JSON.ExtraFields)")
		eq(t, len(m.ToolCalls), 0, "len(message.tool_calls)")
		eq(t, r.Choices[0].FinishReason, "stop", "finish_reason")
		checkChatUsage(t, r.Usage, s.usage(t, 0), "response")
		s.requests(t, 1)
	})

	t.Run("streamed/reasoning", func(t *testing.T) {
		s := startServer(t, plain)
		stream := client(s).Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:         model,
			Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		acc, reasoningText := readChatStream(t, stream)
		eq(t, acc.Choices[0].Message.Content, answer, "accumulated message.content")
		eq(t, reasoningText, reasoning, "concatenated delta.reasoning (JSON.ExtraFields)")
		eq(t, acc.Choices[0].FinishReason, "stop", "finish_reason")
		checkChatUsage(t, acc.Usage, s.usage(t, 0), "accumulated usage")
		s.requests(t, 1)
	})

	t.Run("plain/tool_loop", func(t *testing.T) {
		s := startServer(t, call, afterTool)
		c := client(s)
		messages := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(weatherQuestion)}
		r1, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Messages: messages, Tools: chatTools})
		require.NoError(t, err, describe(err))
		m1 := r1.Choices[0].Message
		eq(t, r1.Choices[0].FinishReason, "tool_calls", "first response: finish_reason")
		eq(t, m1.JSON.Content.Raw(), "null", "first response: message.content (raw JSON)")
		r1reasoning := extraString(t, m1.JSON.ExtraFields, "reasoning")
		eq(t, r1reasoning, callReasoning, "first response: message.reasoning")
		require.Len(t, m1.ToolCalls, 1, "first response: tool_calls")
		tc := m1.ToolCalls[0]
		eq(t, tc.Type, "function", "tool_calls[0].type")
		eq(t, tc.Function.Name, "get_weather", "tool_calls[0].function.name")
		eq(t, parseArgs(t, tc.Function.Arguments, "tool_calls[0].function.arguments"), wantArgs(), "tool_calls[0].function.arguments, parsed")
		assert.True(t, strings.HasPrefix(tc.ID, "call_"), "tool_calls[0].id: got %q, want call_…", tc.ID)
		checkChatUsage(t, r1.Usage, s.usage(t, 0), "first response")

		asst := m1.ToAssistantMessageParam()
		asst.SetExtraFields(map[string]any{"reasoning": r1reasoning})
		messages = append(messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &asst}, openai.ToolMessage(toolResult, tc.ID))
		r2, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Messages: messages, Tools: chatTools})
		require.NoError(t, err, describe(err))
		m2 := r2.Choices[0].Message
		eq(t, m2.Content, finalAnswer, "second response: message.content")
		eq(t, extraString(t, m2.JSON.ExtraFields, "reasoning"), finalReasoning, "second response: message.reasoning")
		eq(t, r2.Choices[0].FinishReason, "stop", "second response: finish_reason")
		checkChatUsage(t, r2.Usage, s.usage(t, 1), "second response")
		s.checkToolLoopPrompt(t, 1)
		s.requests(t, 2)
	})

	t.Run("streamed/tool_loop", func(t *testing.T) {
		s := startServer(t, call, afterTool)
		c := client(s)
		messages := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(weatherQuestion)}
		params := func() openai.ChatCompletionNewParams {
			return openai.ChatCompletionNewParams{
				Model: model, Messages: messages, Tools: chatTools,
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
			}
		}
		acc, r1reasoning := readChatStream(t, c.Chat.Completions.NewStreaming(ctx, params()))
		eq(t, acc.Choices[0].FinishReason, "tool_calls", "first stream: finish_reason")
		eq(t, acc.Choices[0].Message.Content, "", "first stream: accumulated content")
		eq(t, r1reasoning, callReasoning, "first stream: concatenated delta.reasoning")
		require.Len(t, acc.Choices[0].Message.ToolCalls, 1, "first stream: accumulated tool_calls")
		tc := acc.Choices[0].Message.ToolCalls[0]
		eq(t, tc.Function.Name, "get_weather", "accumulated tool call: function.name")
		eq(t, parseArgs(t, tc.Function.Arguments, "accumulated tool call arguments"), wantArgs(), "accumulated tool call arguments, parsed")
		assert.True(t, strings.HasPrefix(tc.ID, "call_"), "accumulated tool call id: got %q, want call_…", tc.ID)
		checkChatUsage(t, acc.Usage, s.usage(t, 0), "first stream")

		asst := acc.Choices[0].Message.ToAssistantMessageParam()
		asst.SetExtraFields(map[string]any{"reasoning": r1reasoning})
		messages = append(messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &asst}, openai.ToolMessage(toolResult, tc.ID))
		acc2, r2reasoning := readChatStream(t, c.Chat.Completions.NewStreaming(ctx, params()))
		eq(t, acc2.Choices[0].Message.Content, finalAnswer, "second stream: accumulated content")
		eq(t, r2reasoning, finalReasoning, "second stream: concatenated delta.reasoning")
		eq(t, acc2.Choices[0].FinishReason, "stop", "second stream: finish_reason")
		checkChatUsage(t, acc2.Usage, s.usage(t, 1), "second stream")
		s.checkToolLoopPrompt(t, 1)
		s.requests(t, 2)
	})
}

type chatStream interface {
	Next() bool
	Current() openai.ChatCompletionChunk
	Err() error
	Close() error
}

// readChatStream accumulates a chat stream with the SDK's
// ChatCompletionAccumulator and concatenates the reasoning deltas.
func readChatStream(t *testing.T, stream chatStream) (*openai.ChatCompletionAccumulator, string) {
	t.Helper()
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var reasoningText strings.Builder
	chunks := 0
	for stream.Next() {
		chunk := stream.Current()
		chunks++
		assert.True(t, acc.AddChunk(chunk), "ChatCompletionAccumulator refused chunk %d: %s", chunks, chunk.RawJSON())
		if len(chunk.Choices) > 0 {
			reasoningText.WriteString(extraString(t, chunk.Choices[0].Delta.JSON.ExtraFields, "reasoning"))
		}
	}
	err := stream.Err()
	require.NoError(t, err, describe(err))
	require.Len(t, acc.Choices, 1, "accumulated choices (%d chunks)", chunks)
	return &acc, reasoningText.String()
}

var responsesTools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
	Name:        "get_weather",
	Description: openai.String("Current weather of a city"),
	Parameters:  weatherParams,
	Strict:      openai.Bool(true),
}}}

func checkResponsesUsage(t *testing.T, u responses.ResponseUsage, want usage, what string) {
	t.Helper()
	eq(t, u.InputTokens, want.Prompt, what+": usage.input_tokens")
	eq(t, u.OutputTokens, want.Completion, what+": usage.output_tokens")
	eq(t, u.TotalTokens, want.Prompt+want.Completion, what+": usage.total_tokens")
	eq(t, u.OutputTokensDetails.ReasoningTokens, want.Reasoning, what+": usage.output_tokens_details.reasoning_tokens")
}

type wantOutput struct {
	reasoning, text string
	call            bool
}

func checkResponse(t *testing.T, r *responses.Response, want wantOutput, what string) {
	t.Helper()
	var types []string
	for _, it := range r.Output {
		types = append(types, it.Type)
	}
	second := "message"
	if want.call {
		second = "function_call"
	}
	eq(t, types, []string{"reasoning", second}, what+": output item types")
	if len(r.Output) != 2 {
		return
	}
	rs := r.Output[0].AsReasoning()
	assert.True(t, strings.HasPrefix(rs.ID, "rs_"), "%s: reasoning item id: got %q, want rs_…", what, rs.ID)
	var text strings.Builder
	for _, p := range rs.Content {
		if p.Type == "reasoning_text" {
			text.WriteString(p.Text)
		}
	}
	eq(t, text.String(), want.reasoning, what+": reasoning item content (reasoning_text)")
	if want.call {
		fc := r.Output[1].AsFunctionCall()
		eq(t, fc.Name, "get_weather", what+": function_call.name")
		eq(t, parseArgs(t, fc.Arguments, what+": function_call.arguments"), wantArgs(), what+": function_call.arguments, parsed")
		assert.True(t, strings.HasPrefix(fc.CallID, "call_"), "%s: function_call.call_id: got %q, want call_…", what, fc.CallID)
		eq(t, string(fc.Status), "completed", what+": function_call.status")
	} else {
		msg := r.Output[1].AsMessage()
		eq(t, string(msg.Role), "assistant", what+": message.role")
		eq(t, string(msg.Status), "completed", what+": message.status")
	}
	eq(t, r.OutputText(), want.text, what+": OutputText()")
	eq(t, string(r.Status), "completed", what+": status")
}

// toInput turns a response's output into input items, as a tool loop
// sends it back: the reasoning item and the call, typed.
func toInput(t *testing.T, r *responses.Response) []responses.ResponseInputItemUnionParam {
	t.Helper()
	var items []responses.ResponseInputItemUnionParam
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			p := it.AsReasoning().ToParam()
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case "function_call":
			p := it.AsFunctionCall().ToParam()
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		case "message":
			p := it.AsMessage().ToParam()
			items = append(items, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		default:
			assert.Fail(t, "unexpected output item type", "%q", it.Type)
		}
	}
	return items
}

func functionCallOf(r *responses.Response) responses.ResponseFunctionToolCall {
	for _, it := range r.Output {
		if it.Type == "function_call" {
			return it.AsFunctionCall()
		}
	}
	return responses.ResponseFunctionToolCall{}
}

// toolOutput is the input item of the tool's result, toolResult, for the
// call fc.
func toolOutput(fc responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(fc.CallID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(toolResult)},
	}}
}

// afterCall is the request of the tool loop after the response previous
// made the call fc: it names previous and sends only the tool's result.
func afterCall(previous string, fc responses.ResponseFunctionToolCall) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: model, PreviousResponseID: openai.String(previous), Tools: responsesTools,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: []responses.ResponseInputItemUnionParam{toolOutput(fc)}},
	}
}

// streamResponse reads a Responses event stream and returns the response of
// its response.completed event, with the concatenated deltas by event type.
func streamResponse(t *testing.T, c *openai.Client, params responses.ResponseNewParams) (*responses.Response, map[string]string, []string) {
	t.Helper()
	stream := c.Responses.NewStreaming(context.Background(), params)
	defer stream.Close()
	deltas := map[string]string{}
	var types []string
	var final *responses.Response
	for stream.Next() {
		e := stream.Current()
		assert.Equal(t, len(types), int(e.SequenceNumber), "event %d (%s): sequence_number", len(types), e.Type)
		types = append(types, e.Type)
		switch e.Type {
		case "response.reasoning_text.delta", "response.output_text.delta", "response.function_call_arguments.delta":
			deltas[e.Type] += e.Delta
		case "response.completed":
			r := e.Response
			final = &r
		}
	}
	err := stream.Err()
	require.NoError(t, err, describe(err))
	require.NotNil(t, final, "no response.completed event: %v", types)
	if assert.GreaterOrEqual(t, len(types), 2, "first events: got %v, want response.created, response.in_progress", types) {
		assert.Equal(t, []string{"response.created", "response.in_progress"}, types[:2], "first events")
	}
	return final, deltas, types
}

func TestResponses(t *testing.T) {
	ctx := context.Background()

	t.Run("plain/reasoning", func(t *testing.T) {
		s := startServer(t, plain)
		r, err := client(s).Responses.New(ctx, responses.ResponseNewParams{
			Model:     model,
			Input:     responses.ResponseNewParamsInputUnion{OfString: openai.String(question)},
			Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow},
		})
		require.NoError(t, err, describe(err))
		checkResponse(t, r, wantOutput{reasoning: reasoning, text: answer}, "response")
		checkResponsesUsage(t, r.Usage, s.usage(t, 0), "response")
		s.requests(t, 1)
	})

	t.Run("streamed/reasoning", func(t *testing.T) {
		s := startServer(t, plain)
		r, deltas, _ := streamResponse(t, client(s), responses.ResponseNewParams{
			Model: model,
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(question)},
		})
		eq(t, deltas["response.reasoning_text.delta"], reasoning, "concatenated response.reasoning_text.delta")
		eq(t, deltas["response.output_text.delta"], answer, "concatenated response.output_text.delta")
		checkResponse(t, r, wantOutput{reasoning: reasoning, text: answer}, "response.completed")
		checkResponsesUsage(t, r.Usage, s.usage(t, 0), "response.completed")
		s.requests(t, 1)
	})

	for _, streamed := range []bool{false, true} {
		name := "plain/tool_loop"
		if streamed {
			name = "streamed/tool_loop"
		}
		t.Run(name, func(t *testing.T) {
			s := startServer(t, call, afterTool)
			c := client(s)
			input := []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(weatherQuestion, responses.EasyInputMessageRoleUser)}
			do := func() *responses.Response {
				params := responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: responsesTools}
				if streamed {
					r, deltas, _ := streamResponse(t, c, params)
					if fc := functionCallOf(r); fc.Name != "" {
						eq(t, parseArgs(t, deltas["response.function_call_arguments.delta"], "concatenated response.function_call_arguments.delta"), wantArgs(),
							"concatenated response.function_call_arguments.delta, parsed")
					}
					return r
				}
				r, err := c.Responses.New(ctx, params)
				require.NoError(t, err, describe(err))
				return r
			}
			r1 := do()
			checkResponse(t, r1, wantOutput{reasoning: callReasoning, call: true}, "first response")
			checkResponsesUsage(t, r1.Usage, s.usage(t, 0), "first response")
			fc := functionCallOf(r1)
			input = append(input, toInput(t, r1)...)
			input = append(input, toolOutput(fc))
			r2 := do()
			checkResponse(t, r2, wantOutput{reasoning: finalReasoning, text: finalAnswer}, "second response")
			checkResponsesUsage(t, r2.Usage, s.usage(t, 1), "second response")
			s.checkToolLoopPrompt(t, 1)
			s.requests(t, 2)
		})
	}
}

// truncated is plain cut by the token limit inside its final message, and
// partial the part of the answer in it.
const (
	partial   = "2 + 2"
	truncated = "<|channel|>analysis<|message|>" + reasoning + "<|end|><|start|>assistant<|channel|>final<|message|>" + partial
)

func truncatedTokens(t *testing.T) int {
	t.Helper()
	all, cut := encode(t, plain).IDs, encode(t, truncated).IDs
	require.LessOrEqual(t, len(cut), len(all), "harness: truncated does not encode to a prefix of plain")
	require.Equal(t, cut, all[:len(cut)], "harness: truncated does not encode to a prefix of plain")
	return len(cut)
}

func TestTokenLimit(t *testing.T) {
	ctx := context.Background()

	t.Run("Chat/plain/length", func(t *testing.T) {
		s := startServer(t, plain)
		limit := truncatedTokens(t)
		r, err := client(s).Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:               model,
			Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
			MaxCompletionTokens: openai.Int(int64(limit)),
		})
		require.NoError(t, err, describe(err))
		eq(t, r.Choices[0].Message.Content, partial, "message.content (cut)")
		eq(t, extraString(t, r.Choices[0].Message.JSON.ExtraFields, "reasoning"), reasoning, "message.reasoning")
		eq(t, r.Choices[0].FinishReason, "length", "finish_reason")
		u := s.usage(t, 0)
		u.Completion = int64(limit)
		checkChatUsage(t, r.Usage, u, "response")
		s.requests(t, 1)
	})

	t.Run("Responses/streamed/incomplete", func(t *testing.T) {
		s := startServer(t, plain)
		limit := truncatedTokens(t)
		stream := client(s).Responses.NewStreaming(ctx, responses.ResponseNewParams{
			Model:           model,
			Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String(question)},
			MaxOutputTokens: openai.Int(int64(limit)),
		})
		defer stream.Close()
		var last responses.ResponseStreamEventUnion
		var text strings.Builder
		for stream.Next() {
			last = stream.Current()
			if last.Type == "response.output_text.delta" {
				text.WriteString(last.Delta)
			}
		}
		err := stream.Err()
		require.NoError(t, err, describe(err))
		eq(t, last.Type, "response.incomplete", "last event")
		r := last.Response
		eq(t, string(r.Status), "incomplete", "response.status")
		eq(t, r.IncompleteDetails.Reason, "max_output_tokens", "response.incomplete_details.reason")
		eq(t, text.String(), partial, "concatenated response.output_text.delta (cut)")
		eq(t, r.OutputText(), partial, "OutputText() (cut)")
		u := s.usage(t, 0)
		u.Completion = int64(limit)
		checkResponsesUsage(t, r.Usage, u, "response")
		s.requests(t, 1)
	})
}

func testStatelessToolLoop(t *testing.T) {
	// store: false and include reasoning.encrypted_content: the reasoning
	// goes back sealed, with the rest of the output items, typed.
	ctx := context.Background()
	s := startServer(t, call, afterTool)
	c := client(s)
	input := []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(weatherQuestion, responses.EasyInputMessageRoleUser)}
	params := func() responses.ResponseNewParams {
		return responses.ResponseNewParams{
			Model: model, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: responsesTools,
			Store: openai.Bool(false), Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		}
	}
	r1, err := c.Responses.New(ctx, params())
	require.NoError(t, err, describe(err))
	checkResponse(t, r1, wantOutput{reasoning: callReasoning, call: true}, "first response")
	if len(r1.Output) > 0 {
		assert.NotEmpty(t, r1.Output[0].AsReasoning().EncryptedContent, "first response: reasoning item encrypted_content, want the sealed reasoning")
	}
	fc := functionCallOf(r1)
	input = append(input, toInput(t, r1)...)
	input = append(input, toolOutput(fc))
	r2, err := c.Responses.New(ctx, params())
	require.NoError(t, err, describe(err))
	checkResponse(t, r2, wantOutput{reasoning: finalReasoning, text: finalAnswer}, "second response")
	s.checkToolLoopPrompt(t, 1)
	s.requests(t, 2)
}

func testPreviousResponseID(t *testing.T) {
	// The tool loop of the openai-go README: the second request names the
	// first with PreviousResponseID and sends only the tool result.
	ctx := context.Background()
	s := startServer(t, call, afterTool)
	c := client(s)
	r1, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(weatherQuestion)}, Tools: responsesTools,
	})
	require.NoError(t, err, describe(err))
	fc := functionCallOf(r1)
	r2, err := c.Responses.New(ctx, afterCall(r1.ID, fc))
	require.NoError(t, err, describe(err))
	checkResponse(t, r2, wantOutput{reasoning: finalReasoning, text: finalAnswer}, "second response")
	s.checkToolLoopPrompt(t, 1)
	s.requests(t, 2)
}

func testErrorShape(t *testing.T) {
	// A request the server must refuse: *openai.Error carries OpenAI's
	// error object.
	s := startServer(t, plain)
	_, err := client(s).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage(question),
			openai.ToolMessage("{}", "call_nope"),
		},
	})
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr, "want an *openai.Error, got %T", err)
	eq(t, apiErr.StatusCode, 400, "StatusCode")
	eq(t, apiErr.Type, "invalid_request_error", "Type")
	assert.True(t, strings.HasPrefix(apiErr.Param, "messages[1]"), "Param: got %q, want messages[1]…", apiErr.Param)
	assert.Contains(t, apiErr.Message, "call_nope", "Message: want it to name call_nope")
	s.requests(t, 0)
}

// More Responses tool loops: stateless, and with previous_response_id.
func TestResponsesToolLoops(t *testing.T) {
	t.Run("plain/tool_loop_store_false_encrypted_reasoning", testStatelessToolLoop)
	t.Run("plain/tool_loop_previous_response_id", testPreviousResponseID)
}

func testAPIKeys(t *testing.T) {
	// With -api-keys, the SDK's API key is the tenant's: a wrong one is a
	// 401 *openai.Error with OpenAI's code; tenant a's tool loop with
	// previous_response_id works, and tenant b naming a's response gets
	// the 400 of an unknown id.
	const keyA, keyB = "sk-tenant-a-0123456789", "sk-tenant-b-9876543210"
	keys := filepath.Join(t.TempDir(), "api-keys")
	require.NoError(t, os.WriteFile(keys, []byte(keyA+" a\n"+keyB+" b\n"), 0o600))
	ctx := context.Background()
	s := startServerFlags(t, []string{"-api-keys", keys}, call, afterTool)
	question := responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(weatherQuestion)}, Tools: responsesTools}
	_, err := clientWithKey(s, "sk-wrong").Responses.New(ctx, question)
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr, "wrong key: want an *openai.Error, got %T", err)
	eq(t, apiErr.StatusCode, 401, "wrong key: StatusCode")
	eq(t, apiErr.Code, "invalid_api_key", "wrong key: Code")
	eq(t, apiErr.Type, "invalid_request_error", "wrong key: Type")
	assert.True(t, strings.HasPrefix(apiErr.Message, "Incorrect API key provided"), "wrong key: Message: got %q, want Incorrect API key provided…", apiErr.Message)

	r1, err := clientWithKey(s, keyA).Responses.New(ctx, question)
	require.NoError(t, err, describe(err))
	fc := functionCallOf(r1)
	_, errB := clientWithKey(s, keyB).Responses.New(ctx, afterCall(r1.ID, fc))
	_, errUnknown := clientWithKey(s, keyB).Responses.New(ctx, afterCall("resp_unknown", fc))
	var eB, eU *openai.Error
	require.ErrorAs(t, errB, &eB, "tenant b, a's response: want an *openai.Error")
	require.ErrorAs(t, errUnknown, &eU, "tenant b, an unknown response: want an *openai.Error")
	eq(t, eB.StatusCode, 400, "tenant b, a's response: StatusCode")
	eq(t, eB.Code, eU.Code, "tenant b, a's response: Code (that of an unknown id)")
	eq(t, eB.Param, eU.Param, "tenant b, a's response: Param (that of an unknown id)")
	eq(t, strings.ReplaceAll(eB.Message, r1.ID, "ID"), strings.ReplaceAll(eU.Message, "resp_unknown", "ID"), "tenant b, a's response: Message (that of an unknown id)")

	r2, err := clientWithKey(s, keyA).Responses.New(ctx, afterCall(r1.ID, fc))
	require.NoError(t, err, describe(err))
	checkResponse(t, r2, wantOutput{reasoning: finalReasoning, text: finalAnswer}, "tenant a's second response")
	s.checkToolLoopPrompt(t, 1)
	s.requests(t, 2)
}

func TestErrors(t *testing.T) {
	t.Run("Chat/plain/400_unknown_tool_call_id", testErrorShape)
	t.Run("Responses/plain/api_keys_401_and_tenants", testAPIKeys)
}
