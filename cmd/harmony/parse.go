package main

import (
	"flag"

	"github.com/go-harmony/harmony"
)

func setupParse(fs *flag.FlagSet) func(*cli) error {
	role, parseOpts := parseFlags(fs)
	return func(c *cli) error {
		opts, err := parseOpts()
		if err != nil {
			return err
		}
		return c.eachLine(func(_ int, line []byte) (any, error) {
			toks, err := parseIDs(line)
			if err != nil {
				return nil, err
			}
			msgs, err := c.enc.ParseCompletion(toks, role.role, opts)
			if err != nil {
				return nil, err
			}
			return messageList(msgs), nil
		})
	}
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
