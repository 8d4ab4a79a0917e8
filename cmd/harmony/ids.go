package main

// This file reads the input of parse, stream and decode: a JSON array of
// token ids.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-harmony/harmony"
)

// parseIDs reads a JSON array of token ids: integers from 0 to 2^32-1.
func parseIDs(line []byte) ([]harmony.Token, error) {
	if toks, ok := scanIDs(line); ok {
		return toks, nil
	}
	return parseIDsJSON(line)
}

// parseIDsJSON is parseIDs with encoding/json, which reads whatever scanIDs
// leaves: it accepts or rejects it, and words the error.
func parseIDsJSON(line []byte) ([]harmony.Token, error) {
	if line[0] != '[' {
		return nil, errors.New("invalid input: want a JSON array of token ids")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	toks := make([]harmony.Token, len(raw))
	for i, r := range raw {
		n, err := strconv.ParseUint(string(r), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("invalid token id %s at index %d: want an integer from 0 to %d", r, i, uint32(1<<32-1))
		}
		toks[i] = harmony.Token(n)
	}
	return toks, nil
}

// scanIDs reads line when it is a JSON array of integers from 0 to 2^32-1
// written in plain digits (no sign, fraction, exponent or leading zero), with
// JSON white space around them: the form ids are written in, which it reads
// many times faster than encoding/json. ok is false for anything else; a line
// it reads is one parseIDs would read to the same ids with encoding/json.
func scanIDs(line []byte) (toks []harmony.Token, ok bool) {
	if len(line) == 0 || line[0] != '[' {
		return nil, false
	}
	i := skipSpace(line, 1)
	toks = make([]harmony.Token, 0, len(line)/7+1)
	if i < len(line) && line[i] == ']' {
		return toks, skipSpace(line, i+1) == len(line)
	}
	for {
		start := i
		var n uint64
		for ; i < len(line) && '0' <= line[i] && line[i] <= '9'; i++ {
			if i-start == 10 {
				return nil, false // more digits than 2^32-1 has
			}
			n = n*10 + uint64(line[i]-'0')
		}
		if i == start || (line[start] == '0' && i-start > 1) || n > 1<<32-1 {
			return nil, false
		}
		toks = append(toks, harmony.Token(n))
		if i = skipSpace(line, i); i == len(line) {
			return nil, false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case ']':
			return toks, skipSpace(line, i+1) == len(line)
		default:
			return nil, false
		}
	}
}

// skipSpace returns the index of the first byte at or after i in b that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
