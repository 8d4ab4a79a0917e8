// Command harmony renders and parses OpenAI's harmony prompt format from the
// command line, reading JSON and writing JSON Lines, for scripts and for
// testing other implementations against this one.
//
// Usage:
//
//	harmony render [--mode completion|conversation|training] [--role ROLE] [--reasoning reference|guide|keep] [--text] [--workers N]
//	harmony render --mode training --mask [--learn-all] [--workers N]
//	harmony parse  [--role ROLE|none] [--lenient|--recover] [--keep-headers]
//	harmony stream [--role ROLE|none] [--lenient|--recover] [--keep-headers]
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
// length. A UTF-8 byte order mark (EF BB BF) at the start of the input is
// skipped. A line that cannot be handled (invalid JSON, a token id that is not
// an integer from 0 to 4294967295, a conversation that cannot be rendered,
// tokens that do not parse) produces {"error":"line N: message"} for that line
// only, N its number in the input (from 1, blank lines counted, as an editor
// numbers them), and processing goes on with the next line. Any message on
// standard error about a line names it the same way.
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
// tokens start right after a rendered "<|start|>ROLE", inside the first
// header. The default, assistant, reads a completion: what a model samples
// after the prompt's "<|start|>assistant" (render's default output ends in
// it). --role none reads tokens that start at a <|start|>, such as a whole
// rendered conversation. With --role none, tokens that do not start at
// <|start|> fail with a hint at --role. With a role, tokens that start with
// <|start|> parse as the reference parses them, "<|start|>" and all in the
// first header's text (a recipient "<|start|>user", say), and standard error
// gets a warning naming the first such line of the run (--recover starts a
// new message there instead).
//
// parse and stream have three modes, a ladder in which each reads
// well-formed tokens exactly as strict does and accepts more than the one
// before it (harmony.ParseMode):
//
//   - strict, the default, is the reference's: tokens that do not form
//     harmony messages are an error.
//   - --lenient is the reference's non-strict mode: a stop token in a
//     header ends that message (harmony.ParseLenient).
//   - --recover is what servers use: malformed model output is recovered
//     by fixed rules and parsing never fails (harmony.ParseRecover).
//
// --lenient and --recover together are a usage error. --keep-headers keeps
// each header's form as the model wrote it, so that rendering the messages
// gives back the sampled tokens.
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
// "error":{"index":k,"message":"line N: ..."}.
//
// decode reads a JSON array of token ids and writes their text as a JSON
// string; invalid UTF-8 becomes U+FFFD (an unknown id is an error).
//
// # Whole-input modes
//
// encode reads all of standard input as one text, every byte of it including
// a trailing newline but for a byte order mark at the start (it marks the
// file's encoding and is not text; U+FEFF anywhere else is encoded), and
// writes its tokens as one JSON array; invalid UTF-8 is encoded as U+FFFD. The text of special tokens is encoded as ordinary
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
// A line command that runs longer than a second while standard error is a
// terminal (and neither standard input nor standard output is that terminal)
// shows its progress there, the input lines done (blank ones counted) and the
// rate,
//
//	render: 12,000 lines, 3,100 lines/s
//
// rewritten in place at most four times a second and ended with a newline
// when the run ends. When standard error is not a terminal (a pipe, a file, a
// log), nothing is written there but diagnostics.
//
// The exit status is 0 when every line succeeded, 1 when any line produced
// an error (an {"error":...} line, or a stream object with "error") or input
// or output failed, and 2 for a usage error: no or an unknown subcommand,
// unknown flags, a bad flag value, flags that do not go together (--mask
// without --mode training, say) or unexpected arguments. -h prints help and
// exits 0.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-harmony/harmony"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usage is the help of the command as a whole.
const usage = `usage: harmony <command> [flags]

Commands (see "harmony <command> -h"):
  render   conversation JSON per line -> token ids (or text, or ids and loss mask) per line
  parse    token ids per line (by default a completion) -> messages per line
  stream   token ids per line (as parse) -> stream parser states and messages per line
  encode   all of stdin as text -> token ids
  count    all of stdin as text -> number of tokens
  decode   token ids per line -> text per line

ROLE is system, developer, user, assistant or tool. Line commands skip blank
lines and write one JSON line per other input line, {"error":"line N: ..."}
for line N if it fails. A long run shows its progress on standard error when
that is a terminal. Exit status: 0 ok, 1 some line or I/O failed, 2 usage
error.
`

// parseRoles says where parse and stream expect the tokens to start.
const parseRoles = `The tokens are a completion, sampled after "<|start|>assistant", by default;
--role ROLE says they follow "<|start|>ROLE", --role none that they start at
<|start|> (a whole rendered conversation, say).`

// parseModes is the ladder of parse modes, for the help of parse and stream.
const parseModes = `Parse modes, a ladder: each reads well-formed tokens as strict does, and accepts more.
  (default)  strict, the reference's: tokens that do not form messages are an error
  --lenient  the reference's non-strict mode: a message cut short in its header ends there
  --recover  what servers use: malformed model output is recovered, never an error`

// command is one subcommand: its flags and what it does once they are parsed.
type command struct {
	synopsis string
	setup    func(fs *flag.FlagSet) func(c *cli) error // registers flags; returns the action
}

// commands are the subcommands, by name.
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
		synopsis: "parse [--role ROLE|none] [--lenient|--recover] [--keep-headers]\n\n" +
			"Reads one JSON array of token ids per line and writes the parsed messages as a\n" +
			"JSON array. Blank lines are skipped.\n\n" + parseRoles + "\n\n" + parseModes,
		setup: setupParse,
	},
	"stream": {
		synopsis: "stream [--role ROLE|none] [--lenient|--recover] [--keep-headers]\n\n" +
			"Reads one JSON array of token ids per line, feeds them to a stream parser and\n" +
			"writes {\"steps\":[...],\"messages\":[...]} (plus \"error\":{\"index\":k,\"message\":\"line N: ...\"}\n" +
			"when token k, or the end of the stream at k = number of tokens, is rejected).\n" +
			"Each step is {\"token\":id|\"eos\":true,\"role\",\"channel\",\"recipient\",\"content_type\",\"delta\"},\n" +
			"null when unknown. Blank lines are skipped.\n\n" + parseRoles + "\n\n" + parseModes,
		setup: setupStream,
	},
	"encode": {
		synopsis: "encode [--special]\n\n" +
			"Encodes all of standard input as one text, trailing newline included (a byte\n" +
			"order mark at the start is skipped), and writes its token ids as a JSON array.\n" +
			"Special-token text is ordinary text unless --special.",
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
	name   string // the subcommand
	enc    *harmony.Encoding
	stdin  io.Reader
	out    *lineWriter
	stderr io.Writer
	failed bool // some line failed

	progress *progress // nil when no one watches
}

// warnf writes a warning about input line n to standard error.
func (c *cli) warnf(n int, format string, args ...any) {
	c.progress.clear()
	fmt.Fprintf(c.stderr, "harmony %s: line %d: warning: %s\n", c.name, n, fmt.Sprintf(format, args...))
}

// run is the whole command: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runIn(console{progress: watched(stdin, stdout, stderr), now: time.Now}, args, stdin, stdout, stderr)
}

// runIn is run in a console that says whether to show progress.
func runIn(con console, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	c := &cli{name: name, enc: enc, stdin: stdin, out: newLineWriter(stdout), stderr: stderr}
	if con.progress {
		c.progress = newProgress(stderr, name, con.now)
	}
	err = action(c)
	c.progress.done()
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

// Error returns the message of the refused combination.
func (e usageError) Error() string { return e.err.Error() }
