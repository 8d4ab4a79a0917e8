package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/jsonw"
)

// setupRender registers the flags of render and returns its action: each
// line's conversation rendered into token ids, text, or ids and a loss mask.
func setupRender(fs *flag.FlagSet) func(*cli) error {
	mode := modeValue("completion")
	role := roleValue{role: harmony.RoleAssistant}
	fs.Var(&mode, "mode", "`MODE`: completion, conversation or training")
	fs.Var(&role, "role", "the `ROLE` of the turn to be sampled (completion mode only)")
	reasoning := reasoningValue{harmony.ReasoningReference}
	fs.Var(&reasoning, "reasoning", "the `POLICY` for earlier analysis messages: reference (the default),\nguide (drop the analysis of answered turns) or keep")
	text := fs.Bool("text", false, "write the rendered text as a JSON string instead of token ids")
	mask := fs.Bool("mask", false, "training mode: write {\"ids\":[...],\"mask\":[...]} with a loss mask (1 = learned),\nthe trained turn's reasoning kept (harmony.Encoding.RenderTrainingExample)")
	learnAll := fs.Bool("learn-all", false, "with --mask: learn every assistant turn, not only the last")
	workers := fs.Int("workers", runtime.NumCPU(), "render on `N` goroutines; the output is in input order")
	return func(c *cli) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		switch {
		case *workers < 1:
			return usageError{fmt.Errorf("--workers %d: want at least 1", *workers)}
		case *mask && mode != "training":
			return usageError{errors.New("--mask needs --mode training")}
		case *mask && (*text || set["reasoning"]):
			return usageError{errors.New("--mask renders the trained turn's reasoning by its own rule: it takes no --text or --reasoning")}
		case *learnAll && !*mask:
			return usageError{errors.New("--learn-all needs --mask")}
		}
		opts := &harmony.RenderOptions{Reasoning: reasoning.p}
		topts := &harmony.TrainingOptions{LearnAllTurns: *learnAll}
		return c.eachLineWorkers(*workers, func() lineFunc {
			var toks []harmony.Token
			var learned []bool
			return func(b, line []byte) ([]byte, *[]harmony.Token, error) {
				conv, err := decodeConversation(line)
				if err != nil {
					return b, nil, err
				}
				if *mask {
					toks, learned, err = c.enc.AppendTrainingExample(toks[:0], learned[:0], conv, topts)
					if err != nil {
						return b, nil, err
					}
					return appendMaskLine(b, toks, learned), nil, nil
				}
				// Room for a guess at the number of tokens, so that a
				// long conversation's are not copied as they grow: text
				// runs to some four bytes a token, and JSON adds its own.
				ids := getIDs(len(line) / 3)
				switch {
				case mode == "conversation":
					*ids, err = c.enc.AppendConversation(*ids, conv, opts)
				case mode == "training":
					*ids, err = c.enc.AppendConversationForTraining(*ids, conv, opts)
				default:
					*ids, err = c.enc.AppendConversationForCompletion(*ids, conv, role.role, opts)
				}
				if err != nil || !*text {
					return b, ids, err // the ids are written by the writer
				}
				defer putIDs(ids)
				s, err := c.enc.Decode(*ids)
				if err != nil {
					return b, nil, err
				}
				return jsonw.AppendString(b, s), nil, nil
			}
		})
	}
}

// decodeConversation decodes a line of render's input, which has no white
// space around it. It calls Conversation.UnmarshalJSON itself, sparing
// json.Unmarshal's scan of the whole line before it, which for such a line
// decides nothing that UnmarshalJSON does not: a line it takes is valid
// JSON. A line it refuses gets json.Unmarshal's error, as ever.
func decodeConversation(line []byte) (harmony.Conversation, error) {
	var conv harmony.Conversation
	if conv.UnmarshalJSON(line) == nil {
		return conv, nil
	}
	conv = harmony.Conversation{}
	if err := json.Unmarshal(line, &conv); err != nil {
		return conv, fmt.Errorf("invalid conversation: %w", err)
	}
	return conv, nil // not reached: json.Unmarshal fails as UnmarshalJSON did
}

// appendIDs appends toks as a JSON array of numbers. It grows b once, to
// the exact size and a byte for the line's newline: a long conversation's
// ids are megabytes, not to be copied as they grow.
func appendIDs(b []byte, toks []harmony.Token) []byte {
	n := 3
	for _, t := range toks {
		n += 1 + digits(uint32(t))
	}
	b = slices.Grow(b, n)
	b = append(b, '[')
	for i, t := range toks {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(t), 10)
	}
	return append(b, ']')
}

// digits returns the number of decimal digits of v.
func digits(v uint32) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// appendMaskLine appends {"ids":[...],"mask":[...]}, the mask as 0s and 1s.
func appendMaskLine(b []byte, toks []harmony.Token, mask []bool) []byte {
	b = appendIDs(append(b, `{"ids":`...), toks)
	b = append(b, `,"mask":[`...)
	for i, m := range mask {
		if i > 0 {
			b = append(b, ',')
		}
		if m {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	return append(b, "]}"...)
}
