// Command tiktokenpeer does with github.com/pkoukk/tiktoken-go the work that
// cmd/harmony does with harmony-go, so that the two compare as whole
// processes: it is the process-level stand-in for "tiktoken-go doing the same
// work" in cmd/harmony's BenchmarkProcess. It is not a tool for users.
//
// Usage:
//
//	tiktokenpeer encode
//	tiktokenpeer decode
//
// The tokenizer is tiktoken-go's CoreBPE built as harmony-go's tiktoken engine
// builds it: the o200k_base ranks embedded in internal/vocab, no special
// tokens, and the o200k pre-tokenization pattern.
//
// encode reads one conversation per line, {"messages":[...]} or a bare array
// of messages in the reference's JSON, encodes each message's texts one by
// one as ordinary text — its role, channel, recipient and content type, then
// the text of each content part (the JSON of a part that is not text stands in
// for its rendering) — and writes the ids of all of them as one JSON array.
//
// decode reads one JSON array of token ids per line and writes the text
// tiktoken-go decodes them to as a JSON string. Ids it does not know, such as
// harmony's special tokens, add nothing.
//
// Blank lines are skipped. Output is written as cmd/harmony writes it: one
// JSON value per line, with "<", ">" and "&" unescaped. A line that fails
// ends the run with exit status 1.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/tiktokenoracle"
	"github.com/pkoukk/tiktoken-go"
)

const usage = "usage: tiktokenpeer encode|decode < input\n"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || (args[0] != "encode" && args[0] != "decode") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	tk, err := newTiktoken()
	if err != nil {
		fmt.Fprintf(stderr, "tiktokenpeer: %v\n", err)
		return 1
	}
	fn := encodeLine
	if args[0] == "decode" {
		fn = decodeLine
	}
	if err := eachLine(stdin, stdout, func(line []byte) (any, error) { return fn(tk, line) }); err != nil {
		fmt.Fprintf(stderr, "tiktokenpeer %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// newTiktoken returns tiktoken-go's o200k_base
// (internal/testsupport/tiktokenoracle), built once.
func newTiktoken() (*tiktoken.Tiktoken, error) {
	o, err := tiktokenoracle.Shared()
	if err != nil {
		return nil, err
	}
	return o.Tiktoken, nil
}

// encodeLine encodes the texts of the conversation line.
func encodeLine(tk *tiktoken.Tiktoken, line []byte) (any, error) {
	texts, err := benchdata.Texts(line, nil)
	if err != nil {
		return nil, err
	}
	ids := []int{}
	for _, t := range texts {
		if t != "" {
			ids = append(ids, tk.EncodeOrdinary(t)...)
		}
	}
	return ids, nil
}

// decodeLine decodes the token ids of line.
func decodeLine(tk *tiktoken.Tiktoken, line []byte) (any, error) {
	var ids []int
	if line[0] != '[' {
		return nil, errors.New("want a JSON array of token ids")
	}
	if err := json.Unmarshal(line, &ids); err != nil {
		return nil, err
	}
	return tk.Decode(ids), nil
}

// eachLine runs fn on every non-blank line of in and writes its result to out
// as one JSON line.
func eachLine(in io.Reader, out io.Writer, fn func(line []byte) (any, error)) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, rerr := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			v, err := fn(line)
			if err != nil {
				w.Flush()
				return fmt.Errorf("line %d: %w", n, err)
			}
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return w.Flush()
		}
		if rerr != nil {
			return rerr
		}
	}
}
