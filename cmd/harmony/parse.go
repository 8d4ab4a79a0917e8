package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/go-harmony/harmony"
)

// setupParse registers the flags of parse and returns its action: each line's
// token ids parsed into messages.
func setupParse(fs *flag.FlagSet) func(*cli) error {
	flags := parseFlags(fs)
	return func(c *cli) error {
		role, opts, err := flags()
		if err != nil {
			return err
		}
		return c.eachTokenLine(role, opts, func(_ int, toks []harmony.Token) (any, error) {
			msgs, err := c.enc.ParseCompletion(toks, role, opts)
			if err != nil {
				return nil, withRoleHint(err, role)
			}
			return messageList(msgs), nil
		})
	}
}

// withRoleHint returns err, a parse error, with a hint at --role when the
// first token is not the <|start|> that --role none wants: the tokens are
// most likely a completion, which starts inside the header the prompt opened.
func withRoleHint(err error, role harmony.Role) error {
	var pe *harmony.ParseError
	if role == "" && errors.As(err, &pe) && pe.Index == 0 && !pe.EOS && pe.State == harmony.StateExpectStart {
		return fmt.Errorf("%w (--role none wants tokens that start at <|start|>; for a completion, sampled after \"<|start|>assistant\", use --role assistant, the default)", err)
	}
	return err
}

// eachTokenLine runs fn, as eachLine does, on the token ids of each line of
// parse's or stream's input, parsed with role and opts: a line that is not a
// JSON array of ids fails.
//
// It warns, once a run, when a line's tokens start with <|start|> although
// role says that they start inside a header: strict and lenient parsing then
// read "<|start|>user" as header text and give messages that are wrong without
// an error. (ParseRecover starts a message there.)
func (c *cli) eachTokenLine(role harmony.Role, opts *harmony.ParseOptions, fn func(n int, toks []harmony.Token) (any, error)) error {
	warn := role != "" && opts.Mode != harmony.ParseRecover // until it has warned
	return c.eachLine(func(n int, line []byte) (any, error) {
		toks, err := parseIDs(line)
		if err != nil {
			return nil, err
		}
		if warn && len(toks) > 0 && toks[0] == harmony.TokenStart {
			warn = false
			c.warnf(n, "the tokens start with <|start|>, which --role %s reads as header text; for tokens that start at <|start|>, use --role none", role)
		}
		return fn(n, toks)
	})
}

// messageList is a list of parsed messages, written by hand with
// Message.AppendJSON (the bytes encoding/json would write, without its
// re-compaction of every message's text).
type messageList []harmony.Message

// appendMessages appends msgs as a JSON array.
func appendMessages(b []byte, msgs []harmony.Message) ([]byte, error) {
	b = append(b, '[')
	for i := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = msgs[i].AppendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
