// Command harmony renders and parses OpenAI's harmony prompt format from the
// command line, reading JSON and writing JSON Lines, for scripts and for
// testing other implementations against this one.
//
// Usage:
//
//	harmony render [--mode completion|conversation|training] [--role ROLE] [--reasoning reference|guide|keep] [--text] [--workers N]
//	harmony render --mode training --mask [--learn-all] [--workers N]
//	harmony parse  [--role ROLE|none] [--lenient] [--recover] [--keep-headers]
//	harmony stream [--role ROLE|none] [--lenient] [--recover] [--keep-headers]
//	harmony encode [--special]
//	harmony count  [--special]
//	harmony decode
//
// Flags may be written with one dash or two. ROLE is one of system,
// developer, user, assistant and tool.
//
// # Line modes
//
// render, parse, stream and decode read one JSON value per input line and
// write exactly one JSON line per input line, in order. Blank lines (empty or
// only white space) are skipped and produce no output line. Lines may be of any
// length. A line that cannot be handled (invalid JSON, a token id that is not
// an integer from 0 to 4294967295, a conversation that cannot be rendered,
// tokens that do not parse) produces {"error":"message"} for that line only,
// and processing goes on with the next line.
//
// render reads a conversation, {"messages":[...]} or a bare array of messages
// in the reference implementation's JSON, and writes its tokens as a JSON
// array of ids. --mode completion (the default) renders for inference and
// appends "<|start|>ROLE" for the turn to be sampled, ROLE given by --role
// (default assistant); --mode conversation renders the messages only; --mode
// training renders for a dataset (a final answer ends in <|return|>).
// --reasoning says which earlier analysis messages are rendered: reference
// (the default, the reference's auto_drop_analysis), guide (the harmony
// guide's rule: the analysis of every turn that ended in a final answer is
// dropped) or keep. --text writes the rendered text
// (decoded from the tokens) as a JSON string instead of the ids.
//
// render --mode training --mask writes a training example with its loss mask,
//
//	{"ids":[ID,...],"mask":[0|1,...]}
//
// one mask value per id, 1 for a token the model is trained to predict, as
// harmony.Encoding.RenderTrainingExample renders it: the last assistant
// turn's own reasoning is kept and that of earlier answered turns dropped
// (so --reasoning and --text do not apply), and the tokens
// the model samples in that turn are learned; --learn-all learns every
// assistant turn's. Input messages may carry their reasoning in "thinking",
// "reasoning_content" or "reasoning" (see harmony.Conversation.UnmarshalJSON);
// any other field the reference's JSON does not have is an error.
//
// render runs on --workers goroutines (default: the number of CPUs) and
// writes its output in input order, byte for byte what one worker writes.
//
// parse reads a JSON array of token ids and writes the parsed messages as a
// JSON array of messages in the reference's JSON. --role ROLE says that the
// tokens start right after a rendered "<|start|>ROLE" (inside the first
// header); the default, none, means they start at a <|start|>. --lenient turns
// on the reference's non-strict mode, --recover the recovery of malformed
// model output that servers use (harmony.ParseOptions.Recover).
//
// stream reads a JSON array of token ids, feeds them one at a time to a
// stream parser (flags as for parse) and writes
//
//	{"steps":[STEP,...],"messages":[...]}
//
// with one STEP per token processed, the parser's state after it,
//
//	{"token":ID,"role":R,"channel":C,"recipient":T,"content_type":CT,"delta":D}
//
// then one for the end of the stream, {"eos":true,"role":...,"delta":D}.
// Fields that are unknown or empty, and a delta when the token added no text,
// are null. messages are the messages completed. When token k is rejected (k
// = the number of tokens for the end of the stream), the steps stop before k,
// messages are those completed before the error, and the object gets
// "error":{"index":k,"message":"..."}.
//
// decode reads a JSON array of token ids and writes their text as a JSON
// string; invalid UTF-8 becomes U+FFFD (an unknown id is an error).
//
// # Whole-input modes
//
// encode reads all of standard input as one text, every byte of it including
// a trailing newline, and writes its tokens as one JSON array; invalid UTF-8
// is encoded as U+FFFD. The text of special tokens is encoded as ordinary
// text, unless --special makes it the special tokens. count writes the number
// of those tokens as a JSON number.
//
// # Output and exit status
//
// Standard output carries only the JSON lines; "<", ">" and "&" are written
// literally. Diagnostics go to standard error. Output is buffered, and
// flushed whenever the command is about to wait for more input (and at exit):
// a program that writes a line and waits gets its answer at once, while bulk
// input is not slowed down by a write per line.
//
// The exit status is 0 when every line succeeded, 1 when any line produced
// an error (an {"error":...} line, or a stream object with "error") or input
// or output failed, and 2 for a usage error: no or an unknown subcommand,
// unknown flags, a bad flag value, flags that do not go together (--mask
// without --mode training, say) or unexpected arguments. -h prints help and
// exits 0.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/jsonw"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: harmony <command> [flags]

Commands (see "harmony <command> -h"):
  render   conversation JSON per line -> token ids (or text, or ids and loss mask) per line
  parse    token ids per line -> messages per line
  stream   token ids per line -> stream parser states and messages per line
  encode   all of stdin as text -> token ids
  count    all of stdin as text -> number of tokens
  decode   token ids per line -> text per line

ROLE is system, developer, user, assistant or tool. Line commands skip blank
lines and write one JSON line per other input line, {"error":"..."} for a line
that fails. Exit status: 0 ok, 1 some line or I/O failed, 2 usage error.
`

// command is one subcommand: its flags and what it does once they are parsed.
type command struct {
	synopsis string
	setup    func(fs *flag.FlagSet) func(c *cli) error // registers flags; returns the action
}

var commands = map[string]command{
	"render": {
		synopsis: "render [--mode completion|conversation|training] [--role ROLE] [--reasoning reference|guide|keep] [--text] [--workers N]\n" +
			"       harmony render --mode training --mask [--learn-all] [--workers N]\n\n" +
			"Reads one conversation per line ({\"messages\":[...]} or a bare array) and writes\n" +
			"its token ids as a JSON array, or with --text the rendered text as a JSON string,\n" +
			"or with --mask {\"ids\":[...],\"mask\":[...]}, a training example with its loss\n" +
			"mask (1 = learned; the last turn's reasoning kept, earlier turns' dropped).\n" +
			"Lines are rendered on N goroutines, output in input order. Blank lines are skipped.",
		setup: setupRender,
	},
	"parse": {
		synopsis: "parse [--role ROLE|none] [--lenient] [--recover] [--keep-headers]\n\n" +
			"Reads one JSON array of token ids per line and writes the parsed messages as a\n" +
			"JSON array. Blank lines are skipped.",
		setup: setupParse,
	},
	"stream": {
		synopsis: "stream [--role ROLE|none] [--lenient] [--recover] [--keep-headers]\n\n" +
			"Reads one JSON array of token ids per line, feeds them to a stream parser and\n" +
			"writes {\"steps\":[...],\"messages\":[...]} (plus \"error\":{\"index\":k,\"message\":...}\n" +
			"when token k, or the end of the stream at k = number of tokens, is rejected).\n" +
			"Each step is {\"token\":id|\"eos\":true,\"role\",\"channel\",\"recipient\",\"content_type\",\"delta\"},\n" +
			"null when unknown. Blank lines are skipped.",
		setup: setupStream,
	},
	"encode": {
		synopsis: "encode [--special]\n\n" +
			"Encodes all of standard input (trailing newline included) as one text and\n" +
			"writes its token ids as a JSON array. Special-token text is ordinary text\n" +
			"unless --special.",
		setup: func(fs *flag.FlagSet) func(*cli) error { return setupEncode(fs, false) },
	},
	"count": {
		synopsis: "count [--special]\n\n" +
			"Like encode, but writes the number of tokens.",
		setup: func(fs *flag.FlagSet) func(*cli) error { return setupEncode(fs, true) },
	},
	"decode": {
		synopsis: "decode\n\n" +
			"Reads one JSON array of token ids per line and writes the text as a JSON\n" +
			"string (invalid UTF-8 becomes U+FFFD). Blank lines are skipped.",
		setup: setupDecode,
	},
}

// cli is the state of one run: the encoding, input and output.
type cli struct {
	enc    *harmony.Encoding
	stdin  io.Reader
	out    *lineWriter
	failed bool // some line failed
}

// run is the whole command: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stderr, usage)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "harmony: unknown command %q\n\n%s", name, usage)
		return 2
	}
	fs := flag.NewFlagSet("harmony "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: harmony %s\n\nFlags:\n", cmd.synopsis)
		fs.PrintDefaults()
	}
	action := cmd.setup(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2 // the flag package has reported the error and the usage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "harmony %s: unexpected argument %q\n", name, fs.Arg(0))
		fs.Usage()
		return 2
	}

	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		fmt.Fprintf(stderr, "harmony %s: %v\n", name, err)
		return 1
	}
	c := &cli{enc: enc, stdin: stdin, out: newLineWriter(stdout)}
	err = action(c)
	if ue := (usageError{}); errors.As(err, &ue) {
		fmt.Fprintf(stderr, "harmony %s: %v\n", name, ue.err)
		fs.Usage()
		return 2
	}
	if ferr := c.out.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "harmony %s: %v\n", name, err)
		return 1
	}
	if c.failed {
		return 1
	}
	return 0
}

// usageError is a combination of flags that an action refuses before it
// reads any input: the command exits with status 2 and its usage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// roleValue is a --role flag: a role name or, with allowNone, "none" for the
// unknown role "".
type roleValue struct {
	role      harmony.Role
	allowNone bool
}

// String returns the flag's value, as flag.Value requires.
func (v *roleValue) String() string {
	if v.role == "" {
		return "none"
	}
	return string(v.role)
}

// Set parses a role name, or "none" where the flag allows it.
func (v *roleValue) Set(s string) error {
	if v.allowNone && s == "none" {
		v.role = ""
		return nil
	}
	if !harmony.Role(s).Valid() {
		if v.allowNone {
			return errors.New("want system, developer, user, assistant, tool or none")
		}
		return errors.New("want system, developer, user, assistant or tool")
	}
	v.role = harmony.Role(s)
	return nil
}

// modeValue is render's --mode flag.
type modeValue string

// String returns the flag's value, as flag.Value requires.
func (v *modeValue) String() string { return string(*v) }

// Set accepts completion, conversation or training.
func (v *modeValue) Set(s string) error {
	switch s {
	case "completion", "conversation", "training":
		*v = modeValue(s)
		return nil
	}
	return errors.New("want completion, conversation or training")
}

// reasoningValue is render's --reasoning flag.
type reasoningValue struct{ p harmony.ReasoningPolicy }

// String returns the flag's value, as flag.Value requires.
func (v *reasoningValue) String() string { return v.p.String() }

// Set accepts reference, guide or keep.
func (v *reasoningValue) Set(s string) error {
	if err := v.p.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want reference, guide or keep")
	}
	return nil
}

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
		b = appendUint32(b, uint32(t))
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

// appendUint32 appends v in decimal, as strconv.AppendUint does, two digits
// at a time.
func appendUint32(b []byte, v uint32) []byte {
	var buf [10]byte
	i := len(buf)
	for v >= 100 {
		q := v / 100
		r := (v - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[r], digitPairs[r+1]
		v = q
	}
	if v >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[v*2], digitPairs[v*2+1]
	} else {
		i--
		buf[i] = byte('0' + v)
	}
	return append(b, buf[i:]...)
}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

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

// parseFlags registers the flags of parse and stream.
func parseFlags(fs *flag.FlagSet) (role *roleValue, opts func() *harmony.ParseOptions) {
	role = &roleValue{allowNone: true}
	fs.Var(role, "role", "the `ROLE` whose header the tokens start in, right after \"<|start|>ROLE\";\nnone (the default) when they start at <|start|>")
	lenient := fs.Bool("lenient", false, "parse in the reference's non-strict mode")
	recover := fs.Bool("recover", false, "recover malformed model output, as a server does (never fails)")
	keep := fs.Bool("keep-headers", false, "keep each header's form as the model wrote it (a \"header\" field),\nso that rendering the messages gives back the sampled tokens")
	return role, func() *harmony.ParseOptions {
		mode := harmony.ParseStrict
		switch {
		case *recover:
			mode = harmony.ParseRecover
		case *lenient:
			mode = harmony.ParseLenient
		}
		return &harmony.ParseOptions{Mode: mode, KeepHeaders: *keep}
	}
}

func setupParse(fs *flag.FlagSet) func(*cli) error {
	role, parseOpts := parseFlags(fs)
	return func(c *cli) error {
		opts := parseOpts()
		return c.eachLine(func(line []byte) (any, error) {
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

type streamError struct {
	Index   int    `json:"index"`
	Message string `json:"message"`
}

func setupStream(fs *flag.FlagSet) func(*cli) error {
	role, parseOpts := parseFlags(fs)
	return func(c *cli) error {
		p, err := c.enc.NewStreamParser(role.role, parseOpts())
		if err != nil {
			return err
		}
		return c.eachLine(func(line []byte) (any, error) {
			toks, err := parseIDs(line)
			if err != nil {
				return nil, err
			}
			return &streamLine{c: c, p: p, toks: toks}, nil
		})
	}
}

// streamLine is the output of stream for one line of tokens, which it
// computes as it is written (see [streamLine.write]).
type streamLine struct {
	c    *cli
	p    *harmony.StreamParser
	toks []harmony.Token
}

// write feeds the tokens to the parser and writes
//
//	{"steps":[STEP,...],"messages":[...]}
//
// (with "error":{"index":k,"message":"..."} when token k is rejected), each
// step as soon as its token is processed: the output of a line of a million
// tokens, some twenty times the size of its input, is never held in memory.
// The bytes are those encoding/json writes, without HTML escaping, for
//
//	struct {
//		Steps    []struct {
//			Token       *harmony.Token `json:"token,omitempty"`
//			EOS         bool           `json:"eos,omitempty"`
//			Role        *string        `json:"role"`
//			Channel     *string        `json:"channel"`
//			Recipient   *string        `json:"recipient"`
//			ContentType *string        `json:"content_type"`
//			Delta       *string        `json:"delta"`
//		} `json:"steps"`
//		Messages []harmony.Message `json:"messages"`
//		Error    *streamError      `json:"error,omitempty"`
//	}
//
// with nil for an unknown or empty field and for no delta (TestStreamBytes
// holds them to it).
func (s *streamLine) write(lw *lineWriter) error {
	p := s.p
	p.Reset()
	var serr *streamError
	var h stepHeader
	fail := func(index int, err error) {
		var pe *harmony.ParseError
		if errors.As(err, &pe) {
			index = pe.Index
		}
		serr = &streamError{Index: index, Message: err.Error()}
		s.c.failed = true
	}
	b := append(lw.w.AvailableBuffer(), `{"steps":[`...)
	for i, t := range s.toks {
		if err := p.Process(t); err != nil {
			fail(i, err)
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"token":`...)
		b = strconv.AppendUint(b, uint64(t), 10)
		b = h.appendState(b, p)
		if cap(b)-len(b) < 1024 { // the buffer is (nearly) full
			if err := lw.writeBuffer(b); err != nil {
				return err
			}
			b = lw.w.AvailableBuffer()
		}
	}
	if serr == nil {
		if err := p.ProcessEOS(); err != nil {
			fail(len(s.toks), err)
		} else {
			if len(s.toks) > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"eos":true`...)
			b = h.appendState(b, p)
		}
	}
	b = append(b, `],"messages":`...)
	b, err := appendMessages(b, p.Messages())
	if err != nil {
		return err
	}
	if serr != nil {
		e, err := lw.marshal(serr)
		if err != nil {
			return err
		}
		b = append(b, `,"error":`...)
		b = append(b, e...)
	}
	b = append(b, "}\n"...)
	return lw.writeBuffer(b)
}

// stepHeader caches the JSON of the header fields of a step (role, channel,
// recipient and content type), which stay the same for every token of a
// message's content.
type stepHeader struct {
	role, channel, recipient, contentType string
	json                                  []byte // nil until the first step
}

// appendState appends the parser's state, the fields of a step after its
// first and the closing brace, to b.
func (h *stepHeader) appendState(b []byte, p *harmony.StreamParser) []byte {
	role, channel, recipient, contentType := string(p.CurrentRole()), p.CurrentChannel(), p.CurrentRecipient(), p.CurrentContentType()
	if h.json == nil || role != h.role || channel != h.channel || recipient != h.recipient || contentType != h.contentType {
		h.role, h.channel, h.recipient, h.contentType = role, channel, recipient, contentType
		j := appendOptional(append(h.json[:0], `,"role":`...), role)
		j = appendOptional(append(j, `,"channel":`...), channel)
		j = appendOptional(append(j, `,"recipient":`...), recipient)
		h.json = appendOptional(append(j, `,"content_type":`...), contentType)
	}
	b = append(b, h.json...)
	b = append(b, `,"delta":`...)
	if d, ok := p.LastContentDelta(); ok {
		b = jsonw.AppendString(b, d)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendOptional appends s as a JSON string, or null when it is empty.
func appendOptional(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, s)
}

func setupEncode(fs *flag.FlagSet, count bool) func(*cli) error {
	special := fs.Bool("special", false, "turn the text of special tokens into those tokens")
	return func(c *cli) error {
		data, err := io.ReadAll(c.stdin)
		if err != nil {
			return fmt.Errorf("reading standard input: %w", err)
		}
		var toks []harmony.Token
		if *special {
			toks = c.enc.EncodeWithSpecialTokens(string(data))
		} else {
			toks = c.enc.EncodeOrdinary(string(data))
		}
		if count {
			return c.out.write(len(toks))
		}
		return c.out.write(ids(toks))
	}
}

func setupDecode(fs *flag.FlagSet) func(*cli) error {
	return func(c *cli) error {
		return c.eachLine(func(line []byte) (any, error) {
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

// rawLine is an output line's JSON, already written, without the newline.
type rawLine []byte

// idsLine is an output line of a lineFunc that left its ids to the writer:
// the JSON in b, then ids as a JSON array. Writing it puts the ids back.
type idsLine struct {
	b   []byte
	ids *[]harmony.Token
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

// eachLine runs fn on every non-blank line of standard input (white space
// trimmed) and writes its result, or {"error":...} when it fails, as one JSON
// line. It stops early only when input or output fails.
func (c *cli) eachLine(fn func(line []byte) (any, error)) error {
	r := newLineReader(c.stdin)
	for {
		// Flush before a read that may block: a client that writes a line
		// and waits gets its answer, and bulk input costs one flush per
		// buffer of input, not one per line.
		if r.Buffered() == 0 {
			if err := c.out.flush(); err != nil {
				return err
			}
		}
		line, rerr := r.readLine()
		if line = bytes.TrimSpace(line); len(line) > 0 {
			v, err := fn(line)
			if err != nil {
				c.failed = true
				v = errorLine{Error: err.Error()}
			}
			if err := c.out.write(v); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("reading standard input: %w", rerr)
		}
	}
}

type errorLine struct {
	Error string `json:"error"`
}

// lineWriter writes JSON values, one per line, with "<", ">" and "&"
// unescaped, to a buffered writer.
type lineWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 1<<16)}
	lw.enc = json.NewEncoder(&lw.buf)
	lw.enc.SetEscapeHTML(false)
	return lw
}

// write writes v as one JSON line. Token ids and stream lines, the bulk of
// the output, are written by hand, in the bytes encoding/json would write;
// anything else with encoding/json.
func (lw *lineWriter) write(v any) error {
	switch v := v.(type) {
	case []harmony.Token:
		return lw.writeIDs(v)
	case *streamLine:
		return v.write(lw)
	case rawLine:
		return lw.writeBuffer(append(v, '\n'))
	case idsLine:
		defer putIDs(v.ids)
		if err := lw.writeBuffer(v.b); err != nil {
			return err
		}
		return lw.writeIDArray(*v.ids)
	case messageList:
		b, err := appendMessages(lw.w.AvailableBuffer(), v)
		if err != nil {
			return err
		}
		return lw.writeBuffer(append(b, '\n'))
	}
	lw.buf.Reset()
	if err := lw.enc.Encode(v); err != nil {
		return err
	}
	return lw.writeBuffer(lw.buf.Bytes())
}

// marshal returns the JSON of v, without the final newline, in a buffer that
// the next call reuses.
func (lw *lineWriter) marshal(v any) ([]byte, error) {
	lw.buf.Reset()
	if err := lw.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(lw.buf.Bytes(), []byte("\n")), nil
}

// writeIDs writes toks as a JSON array of numbers (null for nil, as
// encoding/json writes it).
func (lw *lineWriter) writeIDs(toks []harmony.Token) error {
	if toks == nil {
		return lw.writeBuffer(append(lw.w.AvailableBuffer(), "null\n"...))
	}
	b := append(lw.w.AvailableBuffer(), '[')
	for i, t := range toks {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(t), 10)
		if len(b) > 4096 {
			if err := lw.writeBuffer(b); err != nil {
				return err
			}
			b = lw.w.AvailableBuffer()
		}
	}
	return lw.writeBuffer(append(b, "]\n"...))
}

// writeIDArray writes toks as a JSON array of numbers and a newline,
// straight into the output buffer, flushing it as it fills.
func (lw *lineWriter) writeIDArray(toks []harmony.Token) error {
	const room = 12 // a comma, ten digits, and the bracket after the last
	b := append(lw.w.AvailableBuffer(), '[')
	for i, t := range toks {
		if cap(b)-len(b) < room {
			if err := lw.writeBuffer(b); err != nil {
				return err
			}
			if lw.w.Available() < 4096 {
				if err := lw.flush(); err != nil {
					return err
				}
			}
			b = lw.w.AvailableBuffer()
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendUint32(b, uint32(t))
	}
	return lw.writeBuffer(append(b, "]\n"...))
}

// writeBuffer writes b, which may be (an extension of) lw.w.AvailableBuffer().
func (lw *lineWriter) writeBuffer(b []byte) error {
	if _, err := lw.w.Write(b); err != nil {
		return fmt.Errorf("writing standard output: %w", err)
	}
	return nil
}

func (lw *lineWriter) flush() error {
	if err := lw.w.Flush(); err != nil {
		return fmt.Errorf("writing standard output: %w", err)
	}
	return nil
}
