package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-harmony/harmony"
)

// A model gives the token ids a gpt-oss model would sample after a rendered
// prompt (which ends in "<|start|>assistant"), normally up to and including
// a stop token. n is the request's place among those that reached the model
// (0, 1, 2, …: line n of the prompt log), which a replay or a seeded draw
// follows; mk builds the request's constraint, for a model that samples
// under it. The server calls Complete outside any lock, for many requests
// at once: implementations must be safe for concurrent use, and a slow
// call delays only its own request.
type model interface {
	Complete(n uint64, conv harmony.Conversation, prompt []harmony.Token, mk constraint) ([]harmony.Token, error)
}

// replay is the model of -replay: request n gets line n of the file, cycling
// back to the first line after the last.
type replay struct {
	lines [][]harmony.Token
}

// Complete returns a copy of line n, cycling, whatever the prompt.
func (r *replay) Complete(n uint64, _ harmony.Conversation, _ []harmony.Token, _ constraint) ([]harmony.Token, error) {
	line := r.lines[n%uint64(len(r.lines))]
	return append([]harmony.Token(nil), line...), nil
}

// readReplay reads a replay file: one JSON array of token ids per line.
// Blank lines are skipped; every id must be one of enc's; at least one line
// is required.
func readReplay(enc *harmony.Encoding, r io.Reader) (*replay, error) {
	br := bufio.NewReader(r)
	var lines [][]harmony.Token
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			var ids []harmony.Token
			if jerr := json.Unmarshal(text, &ids); jerr != nil {
				return nil, fmt.Errorf("line %d: want a JSON array of token ids: %v", n, jerr)
			}
			if ids == nil {
				return nil, fmt.Errorf("line %d: want a JSON array of token ids, not null", n)
			}
			if _, derr := enc.Decode(ids); derr != nil {
				return nil, fmt.Errorf("line %d: %v", n, derr)
			}
			lines = append(lines, ids)
		}
		if err != nil { // io.EOF
			break
		}
	}
	if len(lines) == 0 {
		return nil, errors.New("no completions: want one JSON array of token ids per line")
	}
	return &replay{lines: lines}, nil
}

// standInWords is how many words of the last user message the stand-in
// echoes.
const standInWords = 8

// standIn is the model used without -replay. It always writes the same two
// messages, an analysis message and a final answer that echoes the first
// words of the last user message:
//
//	<|channel|>analysis<|message|>The user wrote: "WORDS". I am the offline
//	stand-in model of examples/chatserver: I echo the first words.<|end|>
//	<|start|>assistant<|channel|>final<|message|>You said: WORDS<|return|>
//
// (one line in the token stream). The harmony structure is encoded with
// EncodeWithSpecialTokens; the user's words with EncodeOrdinary, so that
// a user who writes "<|call|>" gets ordinary tokens back, as from a real
// model.
type standIn struct {
	enc *harmony.Encoding
}

// Complete returns the stand-in's completion for the conversation.
func (s standIn) Complete(_ uint64, conv harmony.Conversation, _ []harmony.Token, _ constraint) ([]harmony.Token, error) {
	words := firstWords(lastUserText(conv), standInWords)
	if words == "" {
		words = "(nothing)"
	}
	ids := s.enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>The user wrote: "`)
	ids = s.enc.AppendOrdinary(ids, words)
	ids = append(ids, s.enc.EncodeWithSpecialTokens(`". I am the offline stand-in model of examples/chatserver: I echo the first words.<|end|>`+
		`<|start|>assistant<|channel|>final<|message|>You said: `)...)
	ids = s.enc.AppendOrdinary(ids, words)
	ids = append(ids, s.enc.EncodeWithSpecialTokens(`<|return|>`)...)
	return ids, nil
}

// lastUserText returns the text of the conversation's last user message.
func lastUserText(conv harmony.Conversation) string {
	for i := len(conv.Messages) - 1; i >= 0; i-- {
		if m := conv.Messages[i]; m.Author.Role == harmony.RoleUser {
			return m.Text()
		}
	}
	return ""
}

// firstWords returns the first n words of s, joined by single spaces, with
// "…" appended when s has more.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + "…"
}
