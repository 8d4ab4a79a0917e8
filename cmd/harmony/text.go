package main

// This file holds the commands between text and token ids: encode, count and
// decode.

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/go-harmony/harmony"
)

// setupEncode registers the flags of encode, or of count when count is set,
// and returns its action: all of standard input encoded as one text.
func setupEncode(fs *flag.FlagSet, count bool) func(*cli) error {
	special := fs.Bool("special", false, "turn the text of special tokens into those tokens")
	return func(c *cli) error {
		data, err := io.ReadAll(c.stdin)
		if err != nil {
			return fmt.Errorf("reading standard input: %w", err)
		}
		// A byte order mark at the start marks the file's encoding; it is
		// not text, and would be a token of its own before the first word.
		text := strings.TrimPrefix(string(data), bom)
		var toks []harmony.Token
		if *special {
			toks = c.enc.EncodeWithSpecialTokens(text)
		} else {
			toks = c.enc.EncodeOrdinary(text)
		}
		if count {
			return c.out.write(len(toks))
		}
		return c.out.write(ids(toks))
	}
}

// setupDecode returns the action of decode, which has no flags: each line's
// token ids decoded into text.
func setupDecode(fs *flag.FlagSet) func(*cli) error {
	return func(c *cli) error {
		return c.eachLine(func(_ int, line []byte) (any, error) {
			toks, err := parseIDs(line)
			if err != nil {
				return nil, err
			}
			return c.enc.Decode(toks)
		})
	}
}

// ids returns toks, or an empty slice for nil, so that no tokens are written
// as [] rather than null.
func ids(toks []harmony.Token) []harmony.Token {
	if toks == nil {
		return []harmony.Token{}
	}
	return toks
}
