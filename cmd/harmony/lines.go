package main

// This file reads standard input a line at a time (lineReader) and runs a
// line command on each line (eachLine).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/go-harmony/harmony/internal/jsonw"
)

// lineReader reads standard input a line at a time, with
// bufio.Reader.ReadBytes('\n'), each line in a slice of its own, and counts
// the lines.
type lineReader struct {
	r     *bufio.Reader
	lines int // the lines read: the number of the last one
}

// newLineReader returns a lineReader of in.
func newLineReader(in io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 1<<16)}
}

// Buffered returns the number of bytes that can be read without reading
// the input.
func (lr *lineReader) Buffered() int { return lr.r.Buffered() }

// readLine reads up to and including the next newline, and returns the line
// and an error when the input ends or fails before one.
func (lr *lineReader) readLine() ([]byte, error) { return lr.r.ReadBytes('\n') }

// bom is the UTF-8 byte order mark, which editors on Windows put at the start
// of a text file to mark its encoding. It is no part of the text.
const bom = "\xEF\xBB\xBF"

// next reads the next line of a line command's input. It returns the line's
// number (1-based, blank lines counted: the line an editor shows; the
// nothing after a final newline is no line, and keeps the number of the line
// before it, so that the number at io.EOF is the count of lines) and the line
// with the white space around it trimmed, empty for a blank line, and, as
// readLine, an error when the input ends or fails before a newline: io.EOF, or
// a read error that names the line it cut short. A byte order mark at the
// start of the input is skipped; one anywhere else is part of its line.
func (lr *lineReader) next() (n int, line []byte, err error) {
	line, err = lr.readLine()
	if lr.lines == 0 {
		line = bytes.TrimPrefix(line, []byte(bom))
	}
	if len(line) > 0 || err != io.EOF { // not the nothing after a final newline
		lr.lines++
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("line %d: reading standard input: %w", lr.lines, err)
	}
	return lr.lines, bytes.TrimSpace(line), err
}

// lineError is the message of line n's {"error":...}.
func lineError(n int, err error) string {
	return "line " + strconv.Itoa(n) + ": " + err.Error()
}

// appendErrorLine appends {"error":"line N: ..."}, the output line of input
// line n when it fails with err, without the newline.
func appendErrorLine(b []byte, n int, err error) []byte {
	b = append(b, `{"error":`...)
	return append(jsonw.AppendString(b, lineError(n, err)), '}')
}

// scanLines reads in a line at a time and calls each on every non-blank line,
// with its number and its white space trimmed. Before each read that may
// block it calls wait, so that the caller can flush its output: a client that
// writes a line and waits gets its answer, and bulk input costs one flush per
// buffer of input, not one per line. It returns the number of lines (blank
// ones counted) when the input ends, or the first error of wait, each or
// reading.
func scanLines(in io.Reader, wait func() error, each func(n int, line []byte) error) (lines int, err error) {
	r := newLineReader(in)
	for {
		if r.Buffered() == 0 {
			if err := wait(); err != nil {
				return 0, err
			}
		}
		n, line, rerr := r.next()
		if len(line) > 0 {
			if err := each(n, line); err != nil {
				return 0, err
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return 0, rerr
		}
	}
}

// eachLine runs fn on every non-blank line of standard input, with its number
// and its white space trimmed, and writes its result, or {"error":"line N:
// ..."} when it fails, as one JSON line. It stops early only when input or
// output fails.
func (c *cli) eachLine(fn func(n int, line []byte) (any, error)) error {
	lines, err := scanLines(c.stdin, c.out.flush, func(n int, line []byte) error {
		v, err := fn(n, line)
		if err != nil {
			c.failed = true
			v = rawLine(appendErrorLine(nil, n, err))
		}
		if err := c.out.write(v); err != nil {
			return err
		}
		c.progress.line(n)
		return nil
	})
	if err == nil {
		c.progress.count(lines)
	}
	return err
}
