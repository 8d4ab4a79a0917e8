package harmony_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/go-harmony/harmony"
)

func ExampleLoadEncoding() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(enc.Name(), enc.TokenizerName())
	fmt.Println(enc.EncodeOrdinary("hello world"))
	// Output:
	// HarmonyGptOss o200k_harmony
	// [24912 2375]
}

func ExampleEncoding_RenderConversationForCompletion() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	weather := harmony.NewToolDescription("get_weather", "Gets the weather for a city.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
	conv := harmony.NewConversation(
		harmony.NewSystemMessage(harmony.NewSystemContent().WithConversationStartDate("2025-06-28")),
		harmony.NewDeveloperMessage(harmony.NewDeveloperContent().
			WithInstructions("Answer briefly.").
			WithFunctionTools(weather)),
		harmony.NewTextMessage(harmony.RoleUser, "Weather in Oslo?"),
	)
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
	// Reasoning: medium
	//
	// # Valid channels: analysis, commentary, final. Channel must be included for every message.
	// Calls to these tools must go to the commentary channel: 'functions'.<|end|><|start|>developer<|message|># Instructions
	//
	// Answer briefly.
	//
	// # Tools
	//
	// ## functions
	//
	// namespace functions {
	//
	// // Gets the weather for a city.
	// type get_weather = (_: {
	// city: string,
	// }) => any;
	//
	// } // namespace functions<|end|><|start|>user<|message|>Weather in Oslo?<|end|><|start|>assistant
}

func ExampleEncoding_ParseCompletion() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	// What a model might sample after "<|start|>assistant" (written as text
	// here; a server gets these ids from the sampler).
	sampled := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Need the weather tool.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`)
	msgs, err := enc.ParseCompletion(sampled, harmony.RoleAssistant, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Printf("%s channel=%s recipient=%q type=%q: %s\n", m.Role, m.Channel, m.Recipient, m.ContentType, m.Text())
	}
	// Output:
	// assistant channel=analysis recipient="" type="": Need the weather tool.
	// assistant channel=commentary recipient="functions.get_weather" type="<|constrain|>json": {"city":"Oslo"}
}

func ExampleStreamParser() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	p, err := enc.NewStreamParser(harmony.RoleAssistant, nil)
	if err != nil {
		log.Fatal(err)
	}
	// The globe emoji is two tokens; its delta comes whole, after the second.
	for _, tok := range enc.EncodeWithSpecialTokens("<|channel|>final<|message|>Hej 🌍!<|return|>") {
		if err := p.Process(tok); err != nil {
			log.Fatal(err)
		}
		if delta, ok := p.LastContentDelta(); ok {
			fmt.Printf("%s %q\n", p.CurrentChannel(), delta)
		}
	}
	if err := p.ProcessEOS(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(p.Messages()), p.Messages()[0].Text())
	// Output:
	// final "Hej"
	// final " "
	// final "🌍"
	// final "!"
	// 1 Hej 🌍!
}

func ExampleEncoding_RenderConversationForTraining() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	conv := harmony.NewConversation(
		harmony.NewTextMessage(harmony.RoleUser, "2+2?"),
		harmony.NewTextMessage(harmony.RoleAssistant, "Trivial.").WithChannel(harmony.ChannelAnalysis),
		harmony.NewTextMessage(harmony.RoleAssistant, "4").WithChannel(harmony.ChannelFinal),
	)
	tokens, err := enc.RenderConversationForTraining(conv, &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll})
	if err != nil {
		log.Fatal(err)
	}
	text, _ := enc.Decode(tokens)
	fmt.Println(text)
	// Output:
	// <|start|>user<|message|>2+2?<|end|><|start|>assistant<|channel|>analysis<|message|>Trivial.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>
}

func ExampleEncoding_RenderConversationWithinBudget() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	search := `{"results":["Paris is the capital and largest city of France.","Paris has been a major centre of finance, diplomacy, commerce and science since the 17th century."]}`
	conv := harmony.NewConversation(
		harmony.NewTextMessage(harmony.RoleUser, "What is the capital of France?"),
		harmony.NewTextMessage(harmony.RoleAssistant, `{"q":"capital of France"}`).
			WithChannel(harmony.ChannelCommentary).WithRecipient("functions.search").WithContentType("<|constrain|>json"),
		harmony.NewToolMessage("functions.search", search).WithRecipient("assistant").WithChannel(harmony.ChannelCommentary),
		harmony.NewTextMessage(harmony.RoleAssistant, "Paris.").WithChannel(harmony.ChannelFinal),
		harmony.NewTextMessage(harmony.RoleUser, "And of Spain?"),
	)
	// A window of 100 tokens, 20 of them kept for the answer.
	budget := harmony.Budget{MaxTokens: 100, Reserve: 20}
	tokens, report, err := enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant, budget, nil)
	if err != nil {
		log.Fatal(err) // a *harmony.BudgetError when even the last turn does not fit
	}
	text, _ := enc.Decode(tokens)
	fmt.Println(text)
	fmt.Printf("%d tokens (%d in full), elided %v, %d turns dropped\n", report.Tokens, report.FullTokens, report.Elided, report.DroppedTurns)

	budget.MaxTokens = 50
	_, report, _ = enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant, budget, nil)
	fmt.Printf("kept %v, %d turns dropped\n", report.Kept, report.DroppedTurns)
	// Output:
	// <|start|>user<|message|>What is the capital of France?<|end|><|start|>assistant to=functions.search<|channel|>commentary <|constrain|>json<|message|>{"q":"capital of France"}<|call|><|start|>functions.search to=assistant<|channel|>commentary<|message|>[tool output elided]<|end|><|start|>assistant<|channel|>final<|message|>Paris.<|end|><|start|>user<|message|>And of Spain?<|end|><|start|>assistant
	// 67 tokens (97 in full), elided [2], 0 turns dropped
	// kept [4], 1 turns dropped
}
