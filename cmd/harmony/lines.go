package main

// This file reads standard input a line at a time (lineReader) and runs a
// line command on each line (eachLine).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/go-harmony/harmony/internal/jsonw"
)

// maxSizedLine is the most input left that a long line's buffer is sized
// to at once (see lineReader.readLine).
const maxSizedLine = 64 << 20

// lineReader reads standard input a line at a time, as
// bufio.Reader.ReadBytes('\n') does, each line in a slice of its own.
//
// A line longer than the read buffer is where the two differ. ReadBytes
// copies its fragments and then the whole line, touching twice its size in
// fresh memory, and a conversation on one line can be megabytes, each page
// of which costs a page fault. When the input left is known (a regular file,
// or a reader with a Len method) and at most maxSizedLine, a long line is
// read into a buffer of that size at once. A line that does not fill the
// buffer, which is then mostly unused, is copied out, and the buffer kept
// for the next long line: it is big enough for any line that follows.
type lineReader struct {
	r     *bufio.Reader
	left  func() (int64, bool) // the input left after r's buffer, if known
	spare []byte               // the buffer of the last long line copied out
	lines int                  // the lines read: the number of the last one
}

// newLineReader returns a lineReader of in, which knows the input left when
// in is a regular file or has a Len method.
func newLineReader(in io.Reader) *lineReader {
	lr := &lineReader{r: bufio.NewReaderSize(in, 1<<16)}
	switch in := in.(type) {
	case interface{ Len() int }:
		lr.left = func() (int64, bool) { return int64(in.Len()), true }
	case *os.File:
		if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
			lr.left = func() (int64, bool) {
				off, err := in.Seek(0, io.SeekCurrent)
				return fi.Size() - off, err == nil && off <= fi.Size()
			}
		}
	}
	return lr
}

// Buffered returns the number of bytes that can be read without reading
// the input.
func (lr *lineReader) Buffered() int { return lr.r.Buffered() }

// readLine reads up to and including the next newline, and returns the line
// and, as ReadBytes does, an error when the input ends or fails before one.
func (lr *lineReader) readLine() ([]byte, error) {
	frag, err := lr.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return append([]byte(nil), frag...), err
	}
	var buf []byte
	if left, ok := lr.leftBytes(); ok && left <= maxSizedLine {
		if n := len(frag) + int(left); cap(lr.spare) >= n {
			buf = lr.spare[:0]
		} else {
			buf = make([]byte, 0, n)
		}
		lr.spare = nil
	}
	buf = append(buf, frag...)
	for err == bufio.ErrBufferFull {
		frag, err = lr.r.ReadSlice('\n')
		if len(buf)+len(frag) > cap(buf) { // double it, as ReadBytes's copies do
			buf = append(make([]byte, 0, 2*cap(buf)+len(frag)), buf...)
		}
		buf = append(buf, frag...)
	}
	if cap(buf) > 2*len(buf) && cap(buf) > 1<<20 {
		lr.spare = buf
		buf = append([]byte(nil), buf...)
	}
	return buf, err
}

// leftBytes returns the number of bytes of input left after what
// ReadSlice has returned, when it is known.
func (lr *lineReader) leftBytes() (int64, bool) {
	if lr.left == nil {
		return 0, false
	}
	left, ok := lr.left()
	return left + int64(lr.r.Buffered()), ok && left >= 0
}

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
