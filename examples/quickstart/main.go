// Command quickstart renders a tool-calling conversation for gpt-oss, prints
// the prompt as text and as token ids, then parses a sample completion back
// into messages — the two jobs an inference server does on every request.
//
//	go run ./examples/quickstart
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/go-harmony/harmony"
)

func main() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}

	// 1. Render the prompt: system, developer (instructions and a function
	// tool), the user's question, and the header of the assistant's turn.
	getWeather := harmony.NewToolDescription(
		"get_current_weather",
		"Gets the current weather in the provided location.",
		json.RawMessage(`{
			"type": "object",
			"properties": {
				"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
				"format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
			},
			"required": ["location"]
		}`),
	)
	conv := harmony.NewConversation(
		harmony.NewSystemMessage(harmony.NewSystemContent().
			WithReasoningEffort(harmony.EffortHigh).
			WithConversationStartDate("2025-06-28")),
		harmony.NewDeveloperMessage(harmony.NewDeveloperContent().
			WithInstructions("Always respond in riddles").
			WithFunctionTools(getWeather)),
		harmony.NewTextMessage(harmony.RoleUser, "What is the weather in Tokyo?"),
	)
	prompt, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		log.Fatal(err)
	}
	text, err := enc.Decode(prompt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("== prompt text")
	fmt.Println(text)
	fmt.Printf("\n== prompt ids (%d tokens)\n%v\n", len(prompt), prompt)

	// 2. Parse what the model sampled after "<|start|>assistant". A server
	// gets these ids from its sampler; here they are written as text.
	completion := enc.EncodeWithSpecialTokens(
		`<|channel|>analysis<|message|>User asks for the weather in Tokyo. Use get_current_weather.<|end|>` +
			`<|start|>assistant<|channel|>commentary to=functions.get_current_weather <|constrain|>json` +
			`<|message|>{"location":"Tokyo, Japan"}<|call|>`)
	msgs, err := enc.ParseCompletion(completion, harmony.RoleAssistant, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\n== parsed completion (%d tokens)\n", len(completion))
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false) // keep "<|constrain|>" readable
	for _, m := range msgs {
		if err := out.Encode(m); err != nil {
			log.Fatal(err)
		}
	}
	last := msgs[len(msgs)-1]
	if last.Recipient != "" {
		fmt.Printf("\nThe model calls %s with %s\n", last.Recipient, last.Text())
	}
}
