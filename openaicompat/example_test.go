package openaicompat_test

import (
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/openaicompat"
)

func ExampleChatCompletionRequest_Conversation() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	var req openaicompat.ChatCompletionRequest
	err = json.Unmarshal([]byte(`{
		"model": "gpt-oss-120b",
		"reasoning_effort": "low",
		"messages": [
			{"role": "system", "content": "Answer briefly."},
			{"role": "user", "content": "What is 2 + 2?"},
			{"role": "assistant", "reasoning": "Simple arithmetic.", "content": "4"},
			{"role": "user", "content": "And 3 + 5?"}
		]
	}`), &req)
	if err != nil {
		log.Fatal(err)
	}
	conv, err := req.Conversation(&openaicompat.RequestOptions{ConversationStartDate: "2025-06-28"})
	if err != nil {
		log.Fatal(err) // a *RequestError: answer with openaicompat.HTTPError(err)
	}
	tokens, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		log.Fatal(err)
	}
	text, _ := enc.Decode(tokens)
	fmt.Println(text)
	// Output:
	// <|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.
	// Knowledge cutoff: 2024-06
	// Current date: 2025-06-28
	//
	// Reasoning: low
	//
	// # Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|><|start|>developer<|message|># Instructions
	//
	// Answer briefly.<|end|><|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant<|channel|>final<|message|>4<|end|><|start|>user<|message|>And 3 + 5?<|end|><|start|>assistant
}

func ExampleChatCompletionRequest_RenderPrompt() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	var req openaicompat.ChatCompletionRequest
	err = json.Unmarshal([]byte(`{
		"model": "gpt-oss-120b",
		"max_tokens": 50,
		"messages": [
			{"role": "user", "content": "What is the capital of France?"},
			{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"capital of France\"}"}}]},
			{"role": "tool", "tool_call_id": "c1", "content": "Paris is the capital and largest city of France. It has been a major centre of finance, diplomacy, commerce and science since the 17th century."},
			{"role": "assistant", "content": "Paris."},
			{"role": "user", "content": "And of Spain?"}
		]
	}`), &req)
	if err != nil {
		log.Fatal(err)
	}
	opts := &openaicompat.RequestOptions{ContextWindow: 170} // gpt-oss: 131072
	conv, err := req.Conversation(opts)
	if err != nil {
		log.Fatal(err)
	}
	_, err = req.RenderPrompt(enc, conv, opts)
	status, body := openaicompat.HTTPError(err)
	b, _ := json.Marshal(body)
	fmt.Println(status, string(b))

	opts.Truncation = openaicompat.TruncationAuto // the server's choice
	prompt, err := req.RenderPrompt(enc, conv, opts)
	if err != nil {
		log.Fatal(err)
	}
	text, _ := enc.Decode(prompt)
	fmt.Println(len(prompt), strings.Contains(text, "<|message|>[tool output elided]<|end|>"))
	// Output:
	// 400 {"error":{"message":"messages: context length exceeded: this model's maximum context length is 170 tokens, but 192 were requested (142 in the messages, 50 for the completion): shorten the messages or the completion's max tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}
	// 117 true
}

func ExampleChatStreamConverter() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	// What the model sampled after the prompt's "<|start|>assistant".
	sampled := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Use the tool.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`)

	n := 0
	c, err := openaicompat.NewChatStreamConverter(enc, &openaicompat.ResponseOptions{
		Model: "gpt-oss-120b", Created: 1700000000,
		IDGenerator: func() string { n++; return strconv.Itoa(n) },
	})
	if err != nil {
		log.Fatal(err)
	}
	show := func(chunks []openaicompat.ChatCompletionChunk) {
		for _, ch := range chunks {
			b, _ := json.Marshal(ch.Choices[0])
			fmt.Println(string(b))
		}
	}
	for _, t := range sampled {
		chunks, err := c.Process(t)
		if err != nil {
			log.Fatal(err) // malformed output: end the stream with an error event
		}
		show(chunks)
	}
	chunks, err := c.Finish(openaicompat.Sampling{})
	if err != nil {
		log.Fatal(err)
	}
	show(chunks)
	// Output:
	// {"index":0,"delta":{"role":"assistant"},"finish_reason":null}
	// {"index":0,"delta":{"reasoning":"Use"},"finish_reason":null}
	// {"index":0,"delta":{"reasoning":" the"},"finish_reason":null}
	// {"index":0,"delta":{"reasoning":" tool"},"finish_reason":null}
	// {"index":0,"delta":{"reasoning":"."},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"city"}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":\""}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"Os"}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"lo"}}]},"finish_reason":null}
	// {"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]},"finish_reason":null}
	// {"index":0,"delta":{},"finish_reason":"tool_calls"}
}

func ExampleResponsesStreamConverter() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	sampled := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Easy.<|end|>` +
		`<|start|>assistant<|channel|>final<|message|>4<|return|>`)
	c, err := openaicompat.NewResponsesStreamConverter(enc, &openaicompat.ResponseOptions{Created: 1})
	if err != nil {
		log.Fatal(err)
	}
	var events []openaicompat.ResponseEvent
	for _, t := range sampled {
		evs, err := c.Process(t)
		if err != nil {
			log.Fatal(err)
		}
		events = append(events, evs...)
	}
	evs, err := c.Finish(openaicompat.Sampling{})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range append(events, evs...) {
		line := fmt.Sprint(e.SequenceNumber, " ", e.Type, " ", e.OutputIndex)
		if text := e.Delta + e.Text; text != "" {
			line += " " + text
		}
		fmt.Println(line)
	}
	// Output:
	// 0 response.created 0
	// 1 response.in_progress 0
	// 2 response.output_item.added 0
	// 3 response.content_part.added 0
	// 4 response.reasoning_text.delta 0 Easy
	// 5 response.reasoning_text.delta 0 .
	// 6 response.reasoning_text.done 0 Easy.
	// 7 response.content_part.done 0
	// 8 response.output_item.done 0
	// 9 response.output_item.added 1
	// 10 response.content_part.added 1
	// 11 response.output_text.delta 1 4
	// 12 response.output_text.done 1 4
	// 13 response.content_part.done 1
	// 14 response.output_item.done 1
	// 15 response.completed 0
}

func ExampleHTTPError() {
	var req openaicompat.ChatCompletionRequest
	_ = json.Unmarshal([]byte(`{"model": "m", "messages": [
		{"role": "user", "content": "Go"},
		{"role": "tool", "tool_call_id": "call_9", "content": "phantom"}
	]}`), &req)
	_, err := req.Conversation(nil)
	status, body := openaicompat.HTTPError(err)
	b, _ := json.MarshalIndent(body, "", "  ")
	fmt.Println(status)
	fmt.Println(string(b))
	// Output:
	// 400
	// {
	//   "error": {
	//     "message": "messages[1].tool_call_id: unknown tool call id: no earlier tool call has the id \"call_9\"",
	//     "type": "invalid_request_error",
	//     "param": "messages[1].tool_call_id",
	//     "code": "unknown_tool_call_id"
	//   }
	// }
}
