package harmony_test

import (
	"fmt"
	"log"

	"github.com/go-harmony/harmony"
)

func ExampleEncoding_RenderTrainingExample() {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	conv := harmony.NewConversation(
		harmony.NewTextMessage(harmony.RoleUser, "What is 2 + 2?"),
		harmony.NewTextMessage(harmony.RoleAssistant, "Simple arithmetic.").WithChannel("analysis"),
		harmony.NewTextMessage(harmony.RoleAssistant, "4.").WithChannel("final"),
	)
	tokens, mask, err := enc.RenderTrainingExample(conv, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Print the tokens, the learned ones in brackets.
	for i := 0; i < len(tokens); {
		j := i
		for j < len(tokens) && mask[j] == mask[i] {
			j++
		}
		text, _ := enc.Decode(tokens[i:j])
		if mask[i] {
			text = "[" + text + "]"
		}
		fmt.Println(text)
		i = j
	}
	// Output:
	// <|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant
	// [<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>4.<|return|>]
}
