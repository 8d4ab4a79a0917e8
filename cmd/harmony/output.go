package main

// This file writes standard output: JSON lines, buffered, with the bulk of
// them (token ids, stream steps, messages) written by hand.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/go-harmony/harmony"
)

// rawLine is an output line's JSON, already written, without the newline.
type rawLine []byte

// idsLine is an output line of a lineFunc that left its ids to the writer:
// the JSON in b, then ids as a JSON array. Writing it puts the ids back.
type idsLine struct {
	b   []byte
	ids *[]harmony.Token
}

// lineWriter writes JSON values, one per line, with "<", ">" and "&"
// unescaped, to a buffered writer.
type lineWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// newLineWriter returns a lineWriter that writes to w through a 64 KiB buffer.
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
		if v == nil {
			return lw.writeBuffer(append(lw.w.AvailableBuffer(), "null\n"...)) // as encoding/json writes it
		}
		return lw.writeIDArray(v)
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
		b = strconv.AppendUint(b, uint64(t), 10)
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

// flush writes what is buffered to standard output.
func (lw *lineWriter) flush() error {
	if err := lw.w.Flush(); err != nil {
		return fmt.Errorf("writing standard output: %w", err)
	}
	return nil
}
