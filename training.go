package harmony

// This file renders supervised training examples with a loss mask. The mask
// follows sampling, not roles: the model writes an assistant turn as runs of
// tokens that each start after a "<|start|>assistant" the prompt supplies and
// end at a stop token (<|call|> or <|return|>), and between the messages of a
// run it samples "<|start|>assistant" itself. The renderer therefore tracks,
// message by message, whether a sampling run is open, rather than masking
// whole messages.

import "slices"

// TrainingOptions control [Encoding.RenderTrainingExample]. The zero value
// (and a nil *TrainingOptions) learns the trained turn only.
type TrainingOptions struct {
	// LearnAllTurns learns the sampled tokens of every assistant message,
	// not only those of the trained turn. The tokens do not change: earlier
	// turns are still rendered without the analysis the guides drop, so
	// their answers are learned without the reasoning that led to them.
	// Use it for data whose earlier turns had no reasoning, or render one
	// example per turn instead.
	LearnAllTurns bool

	// NormalizeSchemas is as in [RenderOptions].
	NormalizeSchemas bool
}

// RenderTrainingExample renders c as a supervised training example and
// returns its tokens with a loss mask of the same length: the model is
// trained to predict tokens[i] when mask[i] is true. A nil opts means the
// defaults.
//
// The trained turn is c's last assistant turn: the messages after the last
// system, developer or user message that precedes c's last assistant
// message, to the end of c (all of c when no such message precedes it; none
// when c has no assistant message, and then no token is learned).
//
// Tokens: the messages before the trained turn lose the analysis messages
// that [ReasoningGuide] drops (the chain of thought of every answered turn),
// the trained turn keeps all of its own, and the result is rendered as
// [Encoding.RenderConversationForTraining] renders it with [ReasoningKeepAll]:
// when c ends in an assistant message on the final channel, its closing token
// is <|return|>. (RenderConversationForTraining itself, as the reference
// does, drops the trained turn's reasoning in a single-turn example.)
//
// Mask: a token is learned when the model samples it in a learned message.
// The learned messages are the assistant messages of the trained turn (with
// LearnAllTurns, every rendered assistant message). Of a learned message, the
// model samples every token from its <|start|> to its closing token
// (<|end|>, <|call|>, or the <|return|> that ends c), except:
//   - "<|start|>assistant" (the tokens [Encoding.AppendConversationForCompletion]
//     appends for [RoleAssistant]) when the message opens a sampling run:
//     when it is c's first rendered message or follows a message that is not
//     the assistant's or that ends in <|call|>. The prompt supplies them. The
//     "<|start|>assistant" of a message that follows another assistant message
//     of the same run is sampled, and learned.
//   - an <|end|> that the next rendered message, not the assistant's,
//     follows: the model ended that turn with <|return|> (the history writes
//     <|end|> in its place) or never ended it.
//
// Every other token is not learned: system, developer, user and tool
// messages, and the assistant messages outside the learned ones.
//
// On error RenderTrainingExample returns a [*RenderError] naming the message
// (its index in c).
func (e *Encoding) RenderTrainingExample(c Conversation, opts *TrainingOptions) (tokens []Token, mask []bool, err error) {
	return e.AppendTrainingExample(nil, nil, c, opts)
}

// AppendTrainingExample appends the tokens of [Encoding.RenderTrainingExample]
// to dst and their mask to mask, one value per token appended (dst and mask
// need not have the same length). On error it returns dst and mask unchanged.
func (e *Encoding) AppendTrainingExample(dst []Token, mask []bool, c Conversation, opts *TrainingOptions) ([]Token, []bool, error) {
	var o TrainingOptions
	if opts != nil {
		o = *opts
	}
	msgs := c.Messages
	turn := trainedTurn(msgs)
	guide := RenderOptions{Reasoning: ReasoningGuide}
	before, assistantOnly := guide.dropBefore(msgs[:turn])
	kept := func(i int) bool { return !dropsAnalysis(&msgs[i], i, before, assistantOnly) }

	// The flags of the conversation that is rendered: the kept messages.
	flags := renderFlags{normalize: o.NormalizeSchemas, functionTools: anyDeclaresFunctionTools(msgs, kept)}
	var roleBuf [4]Token
	prompted := 1 + len(e.appendOrdinary(roleBuf[:0], string(RoleAssistant))) // "<|start|>assistant"

	n0, m0 := len(dst), len(mask)
	runOpen := false // the last rendered message is the assistant's and did not end in <|call|>
	endAt := -1      // the mask index of the learned <|end|> that closed it
	for i := range msgs {
		if !kept(i) {
			continue
		}
		m := &msgs[i]
		start := len(dst)
		var err error
		if dst, err = e.appendMessage(dst, m, flags); err != nil {
			return dst[:n0], mask[:m0], &RenderError{MessageIndex: i, Err: err}
		}
		assistant := m.Role == RoleAssistant
		if endAt >= 0 && !assistant {
			mask[endAt] = false
		}
		n := len(dst) - start
		if assistant && (i >= turn || o.LearnAllTurns) {
			skip := 0
			if !runOpen {
				skip = min(prompted, n)
			}
			mask = appendBools(mask, false, skip)
			mask = appendBools(mask, true, n-skip)
			endAt = -1
			if dst[len(dst)-1] == TokenEnd {
				endAt = len(mask) - 1
			}
		} else {
			mask = appendBools(mask, false, n)
			endAt = -1
		}
		runOpen = assistant && dst[len(dst)-1] != TokenCall
	}
	if n := len(msgs); n > 0 && len(dst) > n0 {
		if last := &msgs[n-1]; last.Role == RoleAssistant && last.Channel == ChannelFinal {
			dst[len(dst)-1] = TokenReturn
		}
	}
	return dst, mask, nil
}

// trainedTurn returns the index of the first message of the trained turn
// (see [Encoding.RenderTrainingExample]), len(msgs) when there is none.
func trainedTurn(msgs []Message) int {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return len(msgs)
	}
	for i := last - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case RoleSystem, RoleDeveloper, RoleUser:
			return i + 1
		}
	}
	return 0
}

// appendBools appends n copies of v to b.
func appendBools(b []bool, v bool, n int) []bool {
	b = slices.Grow(b, n)
	for range n {
		b = append(b, v)
	}
	return b
}
