package harmony

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/require"
)

// span is a run of tokens that are all learned or all not.
type span struct {
	learned bool
	ids     []Token
	text    string // what the ids decode to, checked too: it says what they are
}

// trainingMessages are the building blocks of the training tests.
var (
	tu    = func(s string) Message { return NewTextMessage(RoleUser, s) }
	ta    = func(ch, s string) Message { return NewTextMessage(RoleAssistant, s).WithChannel(ch) }
	tcall = NewTextMessage(RoleAssistant, `{"city":"Oslo"}`).WithChannel(ChannelCommentary).
		WithRecipient("functions.get_weather").WithContentType("<|constrain|>json")
	tresult = NewToolMessage("functions.get_weather", `{"temp":3}`).WithRecipient("assistant").WithChannel(ChannelCommentary)
)

// TestTrainingExample pins the tokens and the mask of a single-turn, a
// multi-turn and a tool-calling example, id by id.
func TestTrainingExample(t *testing.T) {
	enc := mustEncoding(t)
	for _, tc := range []struct {
		name  string
		msgs  []Message
		opts  *TrainingOptions
		spans []span
	}{
		{"single turn: its reasoning is kept", []Message{tu("What is 2+2?"), ta("analysis", "Simple."), ta("final", "4.")}, nil, []span{
			{false, []Token{200006, 1428, 200008, 4827, 382, 220, 17, 10, 17, 30, 200007, 200006, 173781},
				"<|start|>user<|message|>What is 2+2?<|end|><|start|>assistant"},
			{true, []Token{200005, 35644, 200008, 17958, 13, 200007, 200006, 173781, 200005, 17196, 200008, 19, 13, 200002},
				"<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>4.<|return|>"},
		}},
		{"multi-turn: the earlier turn's reasoning is dropped, only the last is learned",
			[]Message{tu("Hi"), ta("analysis", "Greet."), ta("final", "Hello."), tu("2+2?"), ta("analysis", "Add."), ta("final", "4.")}, nil, []span{
				{false, []Token{200006, 1428, 200008, 12194, 200007, 200006, 173781, 200005, 17196, 200008, 13225, 13, 200007,
					200006, 1428, 200008, 17, 10, 17, 30, 200007, 200006, 173781},
					"<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello.<|end|><|start|>user<|message|>2+2?<|end|><|start|>assistant"},
				{true, []Token{200005, 35644, 200008, 2578, 13, 200007, 200006, 173781, 200005, 17196, 200008, 19, 13, 200002},
					"<|channel|>analysis<|message|>Add.<|end|><|start|>assistant<|channel|>final<|message|>4.<|return|>"},
			}},
		{"multi-turn, every turn learned",
			[]Message{tu("Hi"), ta("analysis", "Greet."), ta("final", "Hello."), tu("2+2?"), ta("analysis", "Add."), ta("final", "4.")},
			&TrainingOptions{LearnAllTurns: true}, []span{
				{false, []Token{200006, 1428, 200008, 12194, 200007, 200006, 173781},
					"<|start|>user<|message|>Hi<|end|><|start|>assistant"},
				{true, []Token{200005, 17196, 200008, 13225, 13}, "<|channel|>final<|message|>Hello."},
				{false, []Token{200007, 200006, 1428, 200008, 17, 10, 17, 30, 200007, 200006, 173781},
					"<|end|><|start|>user<|message|>2+2?<|end|><|start|>assistant"},
				{true, []Token{200005, 35644, 200008, 2578, 13, 200007, 200006, 173781, 200005, 17196, 200008, 19, 13, 200002},
					"<|channel|>analysis<|message|>Add.<|end|><|start|>assistant<|channel|>final<|message|>4.<|return|>"},
			}},
		{"tool calling: the call is learned, its result and the prompt's <|start|>assistant are not",
			[]Message{tu("Weather in Oslo?"), ta("analysis", "Use tool."), tcall, tresult, ta("analysis", "Cold."), ta("final", "3 degrees.")}, nil, []span{
				{false, []Token{200006, 1428, 200008, 29602, 306, 44865, 30, 200007, 200006, 173781},
					"<|start|>user<|message|>Weather in Oslo?<|end|><|start|>assistant"},
				{true, []Token{200005, 35644, 200008, 8470, 4584, 13, 200007, 200006, 173781, 316, 28, 44580, 775, 170154,
					200005, 12606, 815, 220, 200003, 4108, 200008, 10848, 17500, 7534, 15097, 746, 18583, 200012},
					`<|channel|>analysis<|message|>Use tool.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`},
				{false, []Token{200006, 44580, 775, 170154, 316, 28, 173781, 200005, 12606, 815, 200008, 10848, 7340, 1243, 18, 92,
					200007, 200006, 173781},
					`<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp":3}<|end|><|start|>assistant`},
				{true, []Token{200005, 35644, 200008, 105418, 13, 200007, 200006, 173781, 200005, 17196, 200008, 18, 18210, 13, 200002},
					"<|channel|>analysis<|message|>Cold.<|end|><|start|>assistant<|channel|>final<|message|>3 degrees.<|return|>"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wantToks []Token
			var wantMask []bool
			for _, s := range tc.spans {
				text, err := enc.Decode(s.ids)
				require.NoError(t, err)
				require.Equal(t, s.text, text, "the test's own span")
				wantToks = append(wantToks, s.ids...)
				wantMask = appendBools(wantMask, s.learned, len(s.ids))
			}
			toks, mask, err := enc.RenderTrainingExample(NewConversation(tc.msgs...), tc.opts)
			require.NoError(t, err)
			require.Equal(t, wantToks, toks)
			require.Equal(t, showMask(wantMask), showMask(mask))
		})
	}
}

// showMask writes a mask as 0s and 1s, for readable failures.
func showMask(mask []bool) string {
	b := make([]byte, len(mask))
	for i, v := range mask {
		b[i] = '0'
		if v {
			b[i] = '1'
		}
	}
	return string(b)
}

// TestTrainingRuns checks where sampling runs start and end: a call stops
// sampling, so the next message's "<|start|>assistant" is the prompt's; an
// example may start with the assistant; an <|end|> that the model did not
// sample (a final answer followed by the user) is not learned.
func TestTrainingRuns(t *testing.T) {
	enc := mustEncoding(t)
	const callText = ` to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`
	for _, tc := range []struct {
		name string
		msgs []Message
		want string // the learned text, runs separated by " | "
	}{
		{"two calls in a row", []Message{tu("Q"), tcall, tcall}, callText + " | " + callText},
		{"the example starts with the assistant", []Message{ta("analysis", "A"), ta("final", "F")},
			"<|channel|>analysis<|message|>A<|end|><|start|>assistant<|channel|>final<|message|>F<|return|>"},
		{"ends in a call", []Message{tu("Q"), ta("analysis", "A"), tcall},
			"<|channel|>analysis<|message|>A<|end|><|start|>assistant" + callText},
		{"ends with the tool's result", []Message{tu("Q"), tcall, tresult}, callText},
		{"ends with the user", []Message{tu("Q"), ta("final", "F"), tu("Q2")}, "<|channel|>final<|message|>F"},
		{"ends in analysis", []Message{tu("Q"), ta("analysis", "A")}, "<|channel|>analysis<|message|>A<|end|>"},
		{"no assistant message", []Message{tu("Q")}, ""},
		{"a developer message opens the turn", []Message{tu("Q"), ta("final", "F"), NewTextMessage(RoleDeveloper, "D"), ta("final", "G")},
			"<|channel|>final<|message|>G<|return|>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks, mask, err := enc.RenderTrainingExample(NewConversation(tc.msgs...), nil)
			require.NoError(t, err)
			require.Equal(t, tc.want, learnedText(t, enc, toks, mask))
		})
	}
}

// learnedText decodes the learned runs of toks, joined by " | ".
func learnedText(t *testing.T, enc *Encoding, toks []Token, mask []bool) string {
	t.Helper()
	require.Len(t, mask, len(toks))
	var runs []string
	for i := 0; i < len(toks); {
		if !mask[i] {
			i++
			continue
		}
		j := i
		for j < len(toks) && mask[j] {
			j++
		}
		s, err := enc.Decode(toks[i:j])
		require.NoError(t, err)
		runs = append(runs, s)
		i = j
	}
	return strings.Join(runs, " | ")
}

// TestTrainingAppend checks the append form: it appends to both slices,
// whatever their lengths, and leaves them unchanged on error, with the
// error naming the message by its index in the conversation.
func TestTrainingAppend(t *testing.T) {
	enc := mustEncoding(t)
	c := NewConversation(tu("Q"), ta("analysis", "A"), ta("final", "F"))
	toks, mask, err := enc.RenderTrainingExample(c, nil)
	require.NoError(t, err)
	dst, m, err := enc.AppendTrainingExample([]Token{1, 2}, []bool{true}, c, nil)
	require.NoError(t, err)
	require.Equal(t, append([]Token{1, 2}, toks...), dst)
	require.Equal(t, append([]bool{true}, mask...), m)

	bad := NewConversation(tu("Q"), ta("analysis", "A"), ta("final", "F"), tu("Q2"), NewTextMessage("robot", "x"), ta("final", "G"))
	dst, m, err = enc.AppendTrainingExample([]Token{1, 2}, []bool{true}, bad, nil)
	var re *RenderError
	require.ErrorAs(t, err, &re)
	require.Equal(t, 4, re.MessageIndex, "the index in the caller's conversation, though a message before it is dropped")
	require.ErrorIs(t, err, ErrUnknownRole)
	require.Equal(t, []Token{1, 2}, dst)
	require.Equal(t, []bool{true}, m)
}

// TestTrainingProperty checks RenderTrainingExample against its definition
// on the conformance conversations and on 2,000 generated ones (the fuzz
// seeds); when sampled, on every sampleEvery-th conversation and the first
// 250 generated ones.
func TestTrainingProperty(t *testing.T) {
	enc := mustEncoding(t)
	n := 0
	generated := uint64(2000)
	if sample.Sampled() {
		generated = 250
	}
	for _, name := range []string{"render.jsonl", "upstream_tests.jsonl"} {
		for _, c := range sample.Every(loadConformance(t, name), every()) {
			if c.Conversation == nil {
				continue
			}
			var conv Conversation
			require.NoError(t, json.Unmarshal(c.Conversation, &conv), c.ID)
			for _, all := range []bool{false, true} {
				checkTrainingExample(t, enc, conv, &TrainingOptions{LearnAllTurns: all})
			}
			n++
		}
	}
	for seed := range generated {
		conv := generatedConversation(seed)
		for _, all := range []bool{false, true} {
			checkTrainingExample(t, enc, conv, &TrainingOptions{LearnAllTurns: all})
		}
	}
	t.Logf("%d conformance conversations and %d generated ones", n, generated)
}

// FuzzTrainingExample checks RenderTrainingExample against its definition
// on conversations built from fuzz bytes.
func FuzzTrainingExample(f *testing.F) {
	enc := mustEncoding(f)
	f.Add([]byte{2, 3, 4, 2, 3, 4})
	f.Add([]byte{2, 3, 5, 6, 3, 4, 2, 5, 6, 5, 6, 3, 4})
	f.Add([]byte{0, 1, 2, 3, 7, 4, 2, 3, 4, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64 {
			return
		}
		conv := conversationFromBytes(b)
		for _, all := range []bool{false, true} {
			checkTrainingExample(t, enc, conv, &TrainingOptions{LearnAllTurns: all})
		}
	})
}

// generatedConversation returns a conversation drawn from seed.
func generatedConversation(seed uint64) Conversation {
	b := make([]byte, 1+seed%12)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x >> 32)
	}
	return conversationFromBytes(b)
}

// conversationFromBytes builds a conversation, each byte choosing a message:
// system, developer with function tools, user, assistant on each channel, a
// call, a tool's result, a named assistant and a preamble.
func conversationFromBytes(b []byte) Conversation {
	tools := NewDeveloperContent().WithFunctionTools(NewToolDescription("get_weather", "Weather.", nil))
	var msgs []Message
	for i, c := range b {
		n := fmt.Sprint(i)
		switch c % 10 {
		case 0:
			msgs = append(msgs, NewSystemMessage(NewSystemContent()))
		case 1:
			msgs = append(msgs, NewDeveloperMessage(tools))
		case 2:
			msgs = append(msgs, tu("Q"+n))
		case 3:
			msgs = append(msgs, ta(ChannelAnalysis, "A"+n))
		case 4:
			msgs = append(msgs, ta(ChannelFinal, "F"+n))
		case 5:
			msgs = append(msgs, tcall)
		case 6:
			msgs = append(msgs, tresult)
		case 7:
			msgs = append(msgs, ta(ChannelAnalysis, "B"+n).WithName("bob"))
		case 8:
			msgs = append(msgs, ta(ChannelCommentary, "P"+n))
		default:
			msgs = append(msgs, NewTextMessage(RoleAssistant, "N"+n)) // no channel
		}
	}
	return NewConversation(msgs...)
}

// checkTrainingExample checks the tokens and the mask of c against the
// definition, computed another way: the tokens are those of
// RenderConversationForTraining of the pruned conversation with every
// analysis message kept; the messages are found at the <|start|> tokens (text
// never holds one); each learned message's tokens are learned but for the
// prompt's "<|start|>assistant" at the start of a run and an <|end|> that the
// model did not sample; the tokens before each run are the completion prompt
// for the messages before it.
func checkTrainingExample(t *testing.T, enc *Encoding, c Conversation, opts *TrainingOptions) {
	t.Helper()
	toks, mask, err := enc.RenderTrainingExample(c, opts)
	require.NoError(t, err)
	msgs := c.Messages

	// The trained turn, the pruned conversation, the original indices.
	turn := len(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			turn = 0
			for j := i - 1; j >= 0; j-- {
				if r := msgs[j].Role; r != RoleAssistant && r != RoleTool {
					turn = j + 1
					break
				}
			}
			break
		}
	}
	hist := ReasoningGuide.Apply(msgs[:turn])
	pruned := append(append([]Message(nil), hist...), msgs[turn:]...)
	want, err := enc.RenderConversationForTraining(NewConversation(pruned...), &RenderOptions{Reasoning: ReasoningKeepAll})
	require.NoError(t, err)
	require.Equal(t, want, toks, "the tokens of the pruned conversation")
	require.Len(t, mask, len(toks))

	// The message spans, at each <|start|>.
	var starts []int
	for i, tok := range toks {
		if tok == TokenStart {
			starts = append(starts, i)
		}
	}
	require.Len(t, starts, len(pruned))
	starts = append(starts, len(toks))
	prompt, err := enc.RenderConversationForCompletion(Conversation{}, RoleAssistant, nil)
	require.NoError(t, err)
	prompted := len(prompt) // "<|start|>assistant"

	wantMask := make([]bool, len(toks))
	firstLearned := len(hist) // the index in pruned of the first learned message
	if opts.LearnAllTurns {
		firstLearned = 0
	}
	for j := firstLearned; j < len(pruned); j++ {
		if pruned[j].Role != RoleAssistant {
			continue
		}
		lo, hi := starts[j], starts[j+1]
		if j == 0 || pruned[j-1].Role != RoleAssistant || toks[lo-1] == TokenCall {
			lo += prompted
			// The prompt of this run is the completion prompt of what
			// precedes it.
			before, err := enc.RenderConversationForCompletion(NewConversation(pruned[:j]...), RoleAssistant, &RenderOptions{Reasoning: ReasoningKeepAll})
			require.NoError(t, err)
			if declares(pruned[:j]) == declares(pruned) { // else the system message differs
				require.Equal(t, before, toks[:lo], "the prompt of the run at message %d", j)
			}
		}
		if toks[hi-1] == TokenEnd && j+1 < len(pruned) && pruned[j+1].Role != RoleAssistant {
			hi--
		}
		for k := lo; k < hi; k++ {
			wantMask[k] = true
		}
	}
	require.Equal(t, showMask(wantMask), showMask(mask), "mask of %s", showRoles(pruned))
}

// declares reports whether a developer message of msgs declares function tools.
func declares(msgs []Message) bool {
	for i := range msgs {
		if declaresFunctionTools(msgs[i].Content) {
			return true
		}
	}
	return false
}

// showRoles describes msgs briefly, for failures.
func showRoles(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role))
		if m.Channel != "" {
			b.WriteString("/" + m.Channel)
		}
		if m.Recipient != "" {
			b.WriteString(">" + m.Recipient)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestWarmTrainingAllocs pins the allocations of a warm small training
// example, as TestWarmRenderAllocs does for a prompt: none. Like that test's,
// its messages have no recipient, whose header text may allocate.
func TestWarmTrainingAllocs(t *testing.T) {
	enc := mustEncoding(t)
	c := benchConversation(t, benchdata.Small())
	c.Messages = append(c.Messages, ta(ChannelAnalysis, "A"), ta(ChannelFinal, "F"), tu("Q"), ta(ChannelAnalysis, "B"), ta(ChannelFinal, "G"))
	dst, mask, err := enc.AppendTrainingExample(nil, nil, c, nil)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		dst, mask, err = enc.AppendTrainingExample(dst[:0], mask[:0], c, nil)
	})
	require.NoError(t, err)
	require.Equal(t, 0.0, allocs, "allocations per warm small training example")
}

// BenchmarkTrainingExample renders the large conversation of package
// benchdata as a training example with its mask, beside
// AppendConversationForTraining, into buffers that are already large enough.
func BenchmarkTrainingExample(b *testing.B) {
	enc := mustEncoding(b)
	c := benchConversation(b, largeConversationJSON())
	toks, err := enc.AppendConversationForTraining(nil, c, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Impl=mask", func(b *testing.B) {
		var mask []bool
		b.ReportAllocs()
		for b.Loop() {
			toks, mask, err = enc.AppendTrainingExample(toks[:0], mask[:0], c, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	})
	b.Run("Impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			toks, err = enc.AppendConversationForTraining(toks[:0], c, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	})
}
