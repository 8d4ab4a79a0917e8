package harmony

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budgetTools is a developer message declaring a function tool, which
// turns on the system message's note about function calls.
var budgetTools = NewDeveloperMessage(NewDeveloperContent().WithInstructions("Be brief.").
	WithFunctionTools(NewToolDescription("lookup", "Looks a word up.",
		json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}}}`))))

// budgetTurn is a turn of a user question, reasoning, a call to lookup, its
// result and the answer.
func budgetTurn(q, result, answer string) []Message {
	return []Message{
		NewTextMessage(RoleUser, q),
		NewTextMessage(RoleAssistant, "Look it up.").WithChannel(ChannelAnalysis),
		NewTextMessage(RoleAssistant, `{"word":"`+q+`"}`).WithChannel(ChannelCommentary).
			WithRecipient("functions.lookup").WithContentType("<|constrain|>json"),
		NewToolMessage("functions.lookup", result).WithRecipient("assistant").WithChannel(ChannelCommentary),
		NewTextMessage(RoleAssistant, answer).WithChannel(ChannelFinal),
	}
}

// budgetConversation is a system and a developer message, two answered
// turns with long tool output and a new question.
func budgetConversation() Conversation {
	msgs := []Message{NewSystemMessage(NewSystemContent().WithConversationStartDate("2025-06-28")), budgetTools}
	msgs = append(msgs, budgetTurn("apple", strings.Repeat("An apple is a fruit. ", 20), "A fruit.")...)
	msgs = append(msgs, budgetTurn("pear", strings.Repeat("A pear is a fruit too. ", 20), "Also a fruit.")...)
	msgs = append(msgs, NewTextMessage(RoleUser, "And a plum?"))
	return NewConversation(msgs...)
}

func TestBudgetExact(t *testing.T) {
	enc := mustEncoding(t)
	c := budgetConversation()
	full, err := enc.RenderConversationForCompletion(c, RoleAssistant, nil)
	require.NoError(t, err)
	// The lengths of the prompt at each step, computed by hand from the
	// tokens of the pieces.
	elide := func(i int) Conversation {
		c := budgetConversation()
		c.Messages[i].Content = []Content{TextContent{Text: ElidedToolOutput}}
		return c
	}
	length := func(c Conversation) int {
		toks, err := enc.RenderConversationForCompletion(c, RoleAssistant, nil)
		require.NoError(t, err)
		return len(toks)
	}
	oneElided := length(elide(5))
	bothElided := elide(5)
	bothElided.Messages[10].Content = elide(10).Messages[10].Content
	twoElided := length(bothElided)
	// Dropping the first turn: the reference's policy applied to the whole
	// conversation dropped its analysis already (it precedes the first final
	// message); the second turn keeps its analysis.
	pearTurn := `<|start|>user<|message|>pear<|end|>` +
		`<|start|>assistant<|channel|>analysis<|message|>Look it up.<|end|>` +
		`<|start|>assistant to=functions.lookup<|channel|>commentary <|constrain|>json<|message|>{"word":"pear"}<|call|>` +
		`<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>[tool output elided]<|end|>` +
		`<|start|>assistant<|channel|>final<|message|>Also a fruit.<|end|>` +
		`<|start|>user<|message|>And a plum?<|end|><|start|>assistant`
	head, err := enc.RenderConversation(NewConversation(c.Messages[:2]...), nil)
	require.NoError(t, err)
	dropped := len(head) + len(enc.EncodeWithSpecialTokens(pearTurn))
	minimal := len(head) + len(enc.EncodeWithSpecialTokens(`<|start|>user<|message|>And a plum?<|end|><|start|>assistant`))

	tests := []struct {
		name   string
		budget Budget
		kept   []int
		elided []int
		turns  int
		text   string // the prompt after the system and developer messages
		full   bool   // FullTokens is known
	}{
		{"no limit", Budget{}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12}, nil, 0, "", true},
		{"fits exactly", Budget{MaxTokens: len(full) + 100, Reserve: 100}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12}, nil, 0, "", true},
		{"oldest tool output elided", Budget{MaxTokens: len(full) - 1}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{5}, 0, "", true},
		{"just fits with one elided", Budget{MaxTokens: oneElided}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{5}, 0, "", true},
		{"both elided", Budget{MaxTokens: oneElided + 10, Reserve: 11}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{5, 10}, 0, "", true},
		{"first turn dropped", Budget{MaxTokens: twoElided - 1}, []int{0, 1, 7, 8, 9, 10, 11, 12}, []int{10}, 1, pearTurn, false},
		{"just fits after a drop", Budget{MaxTokens: dropped}, []int{0, 1, 7, 8, 9, 10, 11, 12}, []int{10}, 1, pearTurn, false},
		{"both turns dropped", Budget{MaxTokens: dropped - 1}, []int{0, 1, 12}, nil, 2, `<|start|>user<|message|>And a plum?<|end|><|start|>assistant`, false},
		{"only what must stay", Budget{MaxTokens: minimal + 5, Reserve: 5}, []int{0, 1, 12}, nil, 2, `<|start|>user<|message|>And a plum?<|end|><|start|>assistant`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []Token{1, 2}
			out, r, err := enc.AppendConversationWithinBudget(prefix, c, RoleAssistant, tt.budget, nil)
			require.NoError(t, err)
			require.Equal(t, prefix, out[:2], "not appended")
			out = out[2:]
			assert.Equal(t, len(out), r.Tokens, "the report's tokens")
			if tt.budget.MaxTokens > 0 {
				assert.LessOrEqual(t, len(out), tt.budget.MaxTokens-tt.budget.Reserve, "tokens, budget %+v", tt.budget)
			}
			// slices.Equal, here and below: an empty list, nil or not, is
			// no index.
			assert.True(t, slices.Equal(r.Kept, tt.kept), "kept %v, want %v", r.Kept, tt.kept)
			assert.True(t, slices.Equal(r.Elided, tt.elided), "elided %v, want %v", r.Elided, tt.elided)
			assert.Equal(t, tt.turns, r.DroppedTurns, "dropped turns")
			if tt.turns > 0 {
				// The first turn's analysis was dropped by the policy.
				assert.Equal(t, 5*tt.turns-1, r.DroppedMessages, "dropped messages")
			}
			assert.Equal(t, tt.full, r.FullTokens == len(full), "FullTokens %d, full prompt %d", r.FullTokens, len(full))
			if tt.text != "" {
				assert.Equal(t, tt.text, renderText(t, enc, out[len(head):]))
			}
			want, err := enc.RenderConversationForCompletion(r.Conversation(c, &tt.budget), RoleAssistant, &RenderOptions{Reasoning: ReasoningKeepAll})
			require.NoError(t, err)
			assert.Equal(t, want, out, "differs from the render of the kept conversation")
		})
	}
	assert.Contains(t, renderText(t, enc, must(enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{MaxTokens: oneElided}, nil))),
		"<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>[tool output elided]<|end|>", "no marker")

	// Too long: what must stay does not fit.
	dst := []Token{9}
	out, r, err := enc.AppendConversationWithinBudget(dst, c, RoleAssistant, Budget{MaxTokens: minimal + 4, Reserve: 5}, nil)
	var be *BudgetError
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, ErrContextTooLong)
	require.Equal(t, [3]int{minimal, minimal + 4, 5}, [3]int{be.Tokens, be.MaxTokens, be.Reserve}, "the *BudgetError's Tokens, MaxTokens and Reserve")
	assert.Equal(t, dst, out, "on error")
	assert.Zero(t, r.Tokens, "on error: %+v", r)
	assert.Nil(t, r.Kept, "on error: %+v", r)
	_, _, largest := enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{MaxTokens: math.MaxInt, Reserve: -1}, nil)
	assert.NoError(t, largest, "the largest budget")
	for _, b := range []Budget{{MaxTokens: 10, Reserve: 10}, {MaxTokens: 10, Reserve: math.MaxInt}, {MaxTokens: 1, Reserve: -5}} {
		_, _, err := enc.RenderConversationWithinBudget(c, RoleAssistant, b, nil)
		if assert.ErrorAs(t, err, &be, "%+v", b) {
			assert.Equal(t, minimal, be.Tokens, "%+v: %v", b, err)
		}
	}
	assert.EqualError(t, err, fmt.Sprintf("harmony: context too long: the prompt needs at least %d tokens, and a context window of %d tokens leaves %d after the 5 reserved for the completion", minimal, minimal+4, minimal-1))
}

// must returns the tokens of a budgeted render, which must succeed.
func must(toks []Token, _ BudgetReport, err error) []Token {
	if err != nil {
		panic(err)
	}
	return toks
}

func TestBudgetImages(t *testing.T) {
	enc := mustEncoding(t)
	const img = "<image: a photograph, 1024x768, of a cat asleep on a red sofa beside an open window>"
	c := NewConversation(
		NewTextMessage(RoleUser, "What is this? "+img),
		NewTextMessage(RoleAssistant, "A cat.").WithChannel(ChannelFinal),
		NewTextMessage(RoleUser, "And this? "+img),
	)
	full := must(enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{}, nil))
	b := Budget{MaxTokens: len(full) - 1, ImagePlaceholder: img}
	out, r, err := enc.RenderConversationWithinBudget(c, RoleAssistant, b, nil)
	require.NoError(t, err)
	want := `<|start|>user<|message|>What is this? [image elided]<|end|>` +
		`<|start|>assistant<|channel|>final<|message|>A cat.<|end|>` +
		`<|start|>user<|message|>And this? ` + img + `<|end|><|start|>assistant`
	assert.Equal(t, want, renderText(t, enc, out))
	assert.Equal(t, []int{0}, r.Elided, "elided")
	// Without the placeholder, the images are not known: the first turn goes.
	b.ImagePlaceholder = ""
	_, r, err = enc.RenderConversationWithinBudget(c, RoleAssistant, b, nil)
	assert.NoError(t, err, "without a placeholder")
	assert.Equal(t, 1, r.DroppedTurns, "without a placeholder: dropped turns")
	assert.Nil(t, r.Elided, "without a placeholder: elided")
}

// TestBudgetShortToolOutput checks that a tool output shorter than the
// marker stays as it is.
func TestBudgetShortToolOutput(t *testing.T) {
	enc := mustEncoding(t)
	c := NewConversation(append(budgetTurn("fig", "ok", "A fruit."), NewTextMessage(RoleUser, "Thanks"))...)
	full := must(enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{}, nil))
	_, r, err := enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{MaxTokens: len(full) - 1}, nil)
	assert.NoError(t, err)
	assert.Nil(t, r.Elided, "elided")
	assert.Equal(t, 1, r.DroppedTurns, "dropped turns")
}

func TestBudgetRenderErrors(t *testing.T) {
	enc := mustEncoding(t)
	bad := []Message{
		{Author: Author{Role: RoleTool}, Content: []Content{TextContent{Text: "x"}}},
		NewTextMessage("robot", "x"),
		NewTextMessage(RoleUser, "x").WithRecipient("a b"),
		{Author: Author{Role: RoleUser}, Content: []Content{NewSystemContent()}},
		{Author: Author{Role: RoleAssistant}, Content: []Content{TextContent{Text: "x"}, nil}},
		{Author: Author{Role: RoleTool, Name: "f"}, Content: []Content{(*TextContent)(nil)}},
		NewTextMessage(RoleUser, "x").WithChannel("<|end|>"),
	}
	for _, m := range bad {
		// In an old turn that is dropped unencoded, in the last turn, and
		// after a system message that is itself broken.
		for _, msgs := range [][]Message{
			{NewTextMessage(RoleUser, strings.Repeat("long ", 100)), m, NewTextMessage(RoleUser, "q")},
			{NewTextMessage(RoleUser, "q"), m},
			{NewSystemMessage(NewSystemContent().WithReasoningEffort("Extreme")), m, NewTextMessage(RoleUser, "q")},
			{m, NewSystemMessage(NewSystemContent().WithReasoningEffort("Extreme")), NewTextMessage(RoleUser, "q")},
		} {
			c := NewConversation(msgs...)
			_, want := enc.RenderConversationForCompletion(c, RoleAssistant, nil)
			_, _, got := enc.RenderConversationWithinBudget(c, RoleAssistant, Budget{MaxTokens: 20}, nil)
			if assert.Error(t, want, "%+v: the plain render", msgs) && assert.Error(t, got, "%+v", msgs) {
				assert.EqualError(t, got, want.Error(), "%+v", msgs)
			}
		}
	}
	_, _, err := enc.RenderConversationWithinBudget(Conversation{}, "robot", Budget{MaxTokens: 10}, nil)
	assert.ErrorIs(t, err, ErrUnknownRole, "bad next role")
}

func TestMaxTokenBytes(t *testing.T) {
	enc := mustEncoding(t)
	longest := 0
	for i := range enc.encoder.NumRanks() {
		longest = max(longest, len(enc.encoder.TokenBytes(uint32(i))))
	}
	assert.Equal(t, maxTokenBytes, longest, "bytes of the longest rank")
}

// randomConversation returns a conversation of system and developer
// messages and turns of questions, reasoning, tool calls (parallel ones
// too, to functions and to the python tool), results and answers, and for
// each call the index of its result.
func randomConversation(r *rand.Rand, img string) (Conversation, map[int]int) {
	words := []string{"the", "cat", "sat", "on", "a", "mat", "and", "then", "12,345", "réunion", "東京", "\n", "{\"k\": [1, 2]}", "  ", img}
	text := func(n int) string {
		var b strings.Builder
		for range r.IntN(n + 1) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	var msgs []Message
	if r.IntN(4) > 0 {
		sys := NewSystemContent()
		if r.IntN(2) == 0 {
			sys = sys.WithTools(PythonNamespace())
		}
		msgs = append(msgs, NewSystemMessage(sys))
	}
	if r.IntN(3) > 0 {
		msgs = append(msgs, budgetTools)
	}
	if r.IntN(5) == 0 {
		msgs = append(msgs, NewTextMessage(RoleAssistant, "Hello! "+text(5)).WithChannel(ChannelFinal))
	}
	pairs := map[int]int{}
	turns := r.IntN(7)
	for turn := range turns {
		msgs = append(msgs, NewTextMessage(RoleUser, text(30)))
		if r.IntN(8) == 0 {
			msgs = append(msgs, NewDeveloperMessage(NewDeveloperContent().WithInstructions(text(5))))
		}
		for range r.IntN(3) {
			if r.IntN(2) == 0 {
				msgs = append(msgs, NewTextMessage(RoleAssistant, text(40)).WithChannel(ChannelAnalysis))
			}
			if r.IntN(4) == 0 {
				msgs = append(msgs, NewTextMessage(RoleAssistant, "Checking. "+text(5)).WithChannel(ChannelCommentary))
			}
			var calls []int
			for range 1 + r.IntN(3) {
				calls = append(calls, len(msgs))
				if r.IntN(4) == 0 {
					msgs = append(msgs, NewTextMessage(RoleAssistant, "print(1)").WithChannel(ChannelAnalysis).WithRecipient("python"))
				} else {
					msgs = append(msgs, NewTextMessage(RoleAssistant, `{"word":"`+text(2)+`"}`).WithChannel(ChannelCommentary).
						WithRecipient("functions.lookup").WithContentType("<|constrain|>json"))
				}
			}
			for _, call := range calls {
				pairs[call] = len(msgs)
				if msgs[call].Recipient == "python" {
					msgs = append(msgs, NewToolMessage("python", text(60)).WithRecipient("assistant").WithChannel(ChannelAnalysis))
				} else {
					msgs = append(msgs, NewToolMessage("functions.lookup", text(80)).WithRecipient("assistant").WithChannel(ChannelCommentary))
				}
			}
		}
		if turn < turns-1 || r.IntN(2) == 0 {
			if r.IntN(2) == 0 {
				msgs = append(msgs, NewTextMessage(RoleAssistant, text(20)).WithChannel(ChannelAnalysis))
			}
			msgs = append(msgs, NewTextMessage(RoleAssistant, text(30)).WithChannel(ChannelFinal))
		}
	}
	if r.IntN(3) > 0 {
		msgs = append(msgs, NewTextMessage(RoleUser, text(20)))
	}
	return NewConversation(msgs...), pairs
}

// naiveFit fits c by the documented rules, the slow and obvious way: render
// every candidate conversation whole, eliding one more message or dropping
// one more turn at a time. It returns the kept and elided indices and the
// turns dropped, or ok false when nothing fits.
func naiveFit(t *testing.T, enc *Encoding, c Conversation, b Budget, opts *RenderOptions) (kept, elided []int, turns int, ok bool) {
	keepAll := &RenderOptions{Reasoning: ReasoningKeepAll}
	if opts != nil {
		keepAll.NormalizeSchemas = opts.NormalizeSchemas
	}
	limit := b.MaxTokens - max(b.Reserve, 0)
	msgs := c.Messages
	before, assistantOnly := opts.dropBefore(msgs)
	var live []int // after the reasoning policy
	lastUser := -1
	for i := range msgs {
		if !dropsAnalysis(&msgs[i], i, before, assistantOnly) {
			live = append(live, i)
			if msgs[i].Role == RoleUser {
				lastUser = i
			}
		}
	}
	fixed := func(i int) bool { return msgs[i].Role == RoleSystem || msgs[i].Role == RoleDeveloper }
	// turnOf numbers the old turns from 1, oldest first; 0 is the last.
	turnOf := map[int]int{}
	n := 0
	for _, i := range live {
		if i >= lastUser || fixed(i) {
			continue
		}
		if n == 0 || msgs[i].Role == RoleUser {
			n++
		}
		turnOf[i] = n
	}
	size := func(kept, elided []int) int {
		var conv []Message
		for _, i := range kept {
			m := msgs[i]
			if slices.Contains(elided, i) {
				m = b.Elide(m)
			}
			conv = append(conv, m)
		}
		toks, err := enc.RenderConversationForCompletion(NewConversation(conv...), RoleAssistant, keepAll)
		require.NoError(t, err)
		return len(toks)
	}
	msgLen := func(m Message) int {
		toks, err := enc.RenderMessage(m, nil)
		require.NoError(t, err)
		return len(toks)
	}
	var cands []int
	for _, i := range live {
		if turnOf[i] > 0 && (msgs[i].Role == RoleTool || b.hasImage(&msgs[i])) && msgLen(b.Elide(msgs[i])) < msgLen(msgs[i]) {
			cands = append(cands, i)
		}
	}
	for k := range len(cands) + 1 {
		if size(live, cands[:k]) <= limit {
			return live, cands[:k], 0, true
		}
	}
	for d := 1; d <= n; d++ {
		var kept, elided []int
		for _, i := range live {
			if turnOf[i] == 0 || turnOf[i] > d {
				kept = append(kept, i)
				if slices.Contains(cands, i) {
					elided = append(elided, i)
				}
			}
		}
		if size(kept, elided) <= limit {
			return kept, elided, d, true
		}
	}
	return nil, nil, 0, false
}

// TestBudgetProperties checks checkBudgetCase's properties on 3,000
// random conversations and budgets, the first 300 of them when sampled.
func TestBudgetProperties(t *testing.T) {
	enc := mustEncoding(t)
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if sample.Sampled() {
		n = 300
	}
	for range n {
		checkBudgetCase(t, enc, r.Uint64(), r.IntN(1<<16), r.IntN(40)-2, r.IntN(64))
	}
}

// FuzzBudget checks the properties of TestBudgetProperties on
// conversations and budgets drawn from the fuzzer's numbers.
func FuzzBudget(f *testing.F) {
	f.Add(uint64(1), 500, 10, 0)
	f.Add(uint64(2), 0, 0, 3)
	f.Add(uint64(3), 1<<16, -1, 7)
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, seed uint64, fraction, reserve, flags int) {
		checkBudgetCase(t, enc, seed, fraction, reserve, flags)
	})
}

// checkBudgetCase fits a random conversation (drawn from seed) into a
// budget of fraction/65536 of its full length, with the reserve given,
// under the reasoning policy and the image placeholder flags chooses, and
// checks the result against naiveFit and the render of the kept
// conversation: the same tokens, within the budget, no call without its
// result, no system or developer message dropped.
func checkBudgetCase(t *testing.T, enc *Encoding, seed uint64, fraction, reserve, flags int) {
	r := rand.New(rand.NewPCG(seed, 0))
	policies := []*RenderOptions{nil, {Reasoning: ReasoningGuide}, {Reasoning: ReasoningKeepAll}, {Reasoning: ReasoningKeepAll, NormalizeSchemas: true}}
	opts := policies[uint(flags)%4]
	img := ""
	if flags&4 != 0 {
		img = "[image: a chart of sales by month, bars in blue]"
	}
	c, pairs := randomConversation(r, img)
	full, err := enc.RenderConversationForCompletion(c, RoleAssistant, opts)
	require.NoError(t, err)
	b := Budget{MaxTokens: int(int64(len(full)) * int64(uint16(fraction)) >> 14), Reserve: reserve, ImagePlaceholder: img}
	name := fmt.Sprintf("seed %d (%d messages, budget %+v, options %+v)", seed, len(c.Messages), b, opts)
	out, rep, err := enc.RenderConversationWithinBudget(c, RoleAssistant, b, opts)
	nb := b
	if b.MaxTokens <= 0 {
		nb.MaxTokens, nb.Reserve = len(full), 0
	}
	wantKept, elided, turns, ok := naiveFit(t, enc, c, nb, opts)
	if !ok {
		var be *BudgetError
		require.ErrorAs(t, err, &be, name)
		require.Greater(t, be.Tokens, b.MaxTokens-max(b.Reserve, 0), "%s: the *BudgetError's tokens", name)
		return
	}
	require.NoError(t, err, name)
	// slices.Equal: an empty list, nil or not, is no index.
	require.True(t, slices.Equal(rep.Kept, wantKept), "%s:\nkept %v\nwant %v", name, rep.Kept, wantKept)
	require.True(t, slices.Equal(rep.Elided, elided), "%s:\nelided %v\nwant   %v", name, rep.Elided, elided)
	require.Equal(t, turns, rep.DroppedTurns, "%s: dropped turns", name)
	if b.MaxTokens > 0 {
		require.LessOrEqual(t, len(out), b.MaxTokens-max(b.Reserve, 0), "%s: tokens", name)
	}
	require.Equal(t, len(out), rep.Tokens, "%s: the report's tokens", name)
	// FullTokens is the full prompt's length or 0, and 0 only when turns
	// were dropped.
	if rep.FullTokens != 0 {
		require.Equal(t, len(full), rep.FullTokens, "%s: FullTokens", name)
	} else {
		require.NotZero(t, rep.DroppedTurns, "%s: FullTokens 0, but no turn dropped", name)
	}
	keepAll := &RenderOptions{Reasoning: ReasoningKeepAll, NormalizeSchemas: opts != nil && opts.NormalizeSchemas}
	want, err := enc.RenderConversationForCompletion(rep.Conversation(c, &b), RoleAssistant, keepAll)
	require.NoError(t, err)
	require.Equal(t, want, out, "%s: output differs from the render of the kept conversation", name)
	if len(rep.Elided) == 0 && rep.DroppedTurns == 0 {
		require.Equal(t, full, out, "%s: nothing cut, but the output is not the full render", name)
	}
	for call, result := range pairs {
		if slices.Contains(rep.Kept, call) != slices.Contains(rep.Kept, result) {
			// The reasoning policy may drop a call to a built-in tool
			// (on the analysis channel) and not its result.
			require.False(t, slices.Contains(rep.Kept, call) || c.Messages[call].Channel != ChannelAnalysis, "%s: call %d and result %d split", name, call, result)
		}
	}
	for i, m := range c.Messages {
		if m.Role == RoleSystem || m.Role == RoleDeveloper {
			require.Contains(t, rep.Kept, i, "%s: message %d (%s) dropped", name, i, m.Role)
		}
	}
}

// budgetBenchConversation is a 1,000-turn agent conversation: per turn a
// question (~250 bytes), reasoning (~800), a call (~80), a tool result
// (~3,000: search results, JSON, code) and an answer (~1,000), drawn from
// benchdata's paragraphs, with the large benchmark's system message and a
// developer message with a function tool; about 1.1M tokens in all.
func budgetBenchConversation() Conversation {
	r := rand.New(rand.NewPCG(7, 7))
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			p := benchdata.Paragraphs[r.IntN(len(benchdata.Paragraphs))]
			w := strings.Fields(p)
			b.WriteString(strings.Join(w[r.IntN(len(w)/2+1):], " "))
			b.WriteByte('\n')
		}
		return b.String()
	}
	msgs := []Message{NewSystemMessage(NewSystemContent().WithConversationStartDate("2025-06-28").WithTools(BrowserNamespace())), budgetTools}
	for range 1000 {
		msgs = append(msgs,
			NewTextMessage(RoleUser, text(250)),
			NewTextMessage(RoleAssistant, text(800)).WithChannel(ChannelAnalysis),
			NewTextMessage(RoleAssistant, `{"word":"`+strings.ReplaceAll(text(60), "\"", "'")+`"}`).WithChannel(ChannelCommentary).
				WithRecipient("functions.lookup").WithContentType("<|constrain|>json"),
			NewToolMessage("functions.lookup", text(3000)).WithRecipient("assistant").WithChannel(ChannelCommentary),
			NewTextMessage(RoleAssistant, text(1000)).WithChannel(ChannelFinal),
		)
	}
	msgs = append(msgs, NewTextMessage(RoleUser, text(250)))
	return NewConversation(msgs...)
}

// BenchmarkBudgetFit fits the 1,000-turn conversation into gpt-oss's
// 131,072-token window with 4,096 tokens reserved: warm, as a server does
// when the conversation comes back with a new turn (the texts of the turns
// it kept are in the encoding's history cache), and cold, on a new encoding
// each time (nothing cached, not even the system message).
func BenchmarkBudgetFit(b *testing.B) {
	shared := mustEncoding(b)
	c := budgetBenchConversation()
	budget := Budget{MaxTokens: 131072, Reserve: 4096}
	full, err := shared.RenderConversationForCompletion(c, RoleAssistant, nil)
	if err != nil {
		b.Fatal(err)
	}
	out, r, err := shared.RenderConversationWithinBudget(c, RoleAssistant, budget, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("full prompt %d tokens; fitted %d tokens: %d turns dropped, %d messages elided", len(full), len(out), r.DroppedTurns, len(r.Elided))
	dst := make([]Token, 0, budget.MaxTokens)
	for _, cache := range []string{"warm", "cold"} {
		b.Run("cache="+cache, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				enc := shared
				if cache == "cold" {
					enc = newEncoding(shared.encoder)
				}
				if _, _, err := enc.AppendConversationWithinBudget(dst, c, RoleAssistant, budget, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBudgetHistoryCache checks that cached texts render as encoded ones,
// and that the cache stays within its budget when no text comes back.
func TestBudgetHistoryCache(t *testing.T) {
	shared := mustEncoding(t)
	e := newEncoding(shared.encoder)
	c := budgetBenchConversation()
	c.Messages = c.Messages[:500]
	b := Budget{MaxTokens: 20000}
	cold := must(e.RenderConversationWithinBudget(c, RoleAssistant, b, nil))
	warm := must(e.RenderConversationWithinBudget(c, RoleAssistant, b, nil))
	require.Equal(t, cold, warm, "warm render differs")
	require.NotZero(t, e.history.Len(), "nothing cached")
	if sample.Sampled() {
		return
	}
	filler := strings.Repeat("Tell me about the weather in spring. ", 100)
	for i := range 3000 {
		c := NewConversation(
			NewTextMessage(RoleUser, fmt.Sprint(i, filler)),
			NewTextMessage(RoleAssistant, fmt.Sprint(filler, i)).WithChannel(ChannelFinal),
			NewTextMessage(RoleUser, fmt.Sprint(i, "?", filler)))
		must(e.RenderConversationWithinBudget(c, RoleAssistant, Budget{MaxTokens: 1 << 20}, nil))
	}
	n := e.history.Bytes()
	assert.LessOrEqual(t, n, int64(historyCacheBytes), "bytes the history cache holds")
	assert.GreaterOrEqual(t, n, int64(historyCacheBytes/2), "bytes the history cache holds")
}
