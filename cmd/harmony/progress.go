package main

// This file shows a line command's progress on standard error, for a person
// who watches a long run: "render: 12,000 lines, 3,100 lines/s", rewritten in
// place a few times a second after a carriage return, and ended with a
// newline when the run ends. A run shorter than progressDelay shows nothing,
// and so does any run whose standard error is not a terminal (see watched):
// scripts and logs never see it. Whether to show it and the clock come in a
// console, so that a test can turn it on with a clock of its own.

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The pace of the progress line.
const (
	progressDelay = time.Second            // nothing is shown before a run is this long
	progressEvery = 250 * time.Millisecond // the shortest time between two refreshes
)

// console is what a run needs to know of where it runs to show progress.
type console struct {
	progress bool             // show progress on standard error
	now      func() time.Time // the clock
}

// watched reports whether a person is watching standard error: it is a
// terminal (a character device), and neither standard input nor standard
// output is that same terminal, where the progress line would mix with what
// is typed or written (curl's progress meter makes the same choice).
func watched(stdin io.Reader, stdout, stderr io.Writer) bool {
	ef, ok := stderr.(*os.File)
	if !ok {
		return false
	}
	ei, err := ef.Stat()
	if err != nil || ei.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	for _, s := range []any{stdin, stdout} {
		if f, ok := s.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && os.SameFile(fi, ei) {
				return false
			}
		}
	}
	return true
}

// progress counts the input lines a line command has done and shows them.
// A nil *progress counts and shows nothing. It is used by one goroutine.
type progress struct {
	w     io.Writer
	name  string // the subcommand
	now   func() time.Time
	start time.Time
	next  time.Time // the earliest time to show the count again
	lines int       // the input lines done
	shown int       // the length of the line on the screen; 0 when there is none
	ever  bool      // the count has been shown
	buf   []byte
}

// newProgress returns a progress for subcommand name that writes to w and
// reads the clock now, starting it.
func newProgress(w io.Writer, name string, now func() time.Time) *progress {
	start := now()
	return &progress{w: w, name: name, now: now, start: start, next: start.Add(progressDelay)}
}

// line records that the input lines up to line n are done, and shows the
// count if it is time to.
func (p *progress) line(n int) {
	if p == nil {
		return
	}
	p.lines = n
	if t := p.now(); !t.Before(p.next) {
		p.show(t, false)
		p.next = t.Add(progressEvery)
	}
}

// count records that n input lines are done, without looking at the clock:
// the count at the end of the input, which done shows.
func (p *progress) count(n int) {
	if p != nil {
		p.lines = n
	}
}

// clear takes the progress line off the screen, for a message to take its
// place; the next refresh shows it again below.
func (p *progress) clear() {
	if p == nil || p.shown == 0 {
		return
	}
	p.buf = append(append(append(p.buf[:0], '\r'), strings.Repeat(" ", p.shown)...), '\r')
	p.w.Write(p.buf)
	p.shown = 0
}

// done shows the final count and ends the line, if the run has shown any:
// a run too short to show progress stays silent.
func (p *progress) done() {
	if p == nil || !p.ever {
		return
	}
	p.show(p.now(), true)
}

// show writes "\rNAME: N lines, R lines/s", padded to cover a longer line
// before it, and a newline if final.
func (p *progress) show(t time.Time, final bool) {
	b := append(p.buf[:0], '\r')
	b = append(b, p.name...)
	b = append(b, ": "...)
	b = appendCount(b, int64(p.lines))
	if p.lines == 1 {
		b = append(b, " line"...)
	} else {
		b = append(b, " lines"...)
	}
	if d := t.Sub(p.start).Seconds(); d > 0 {
		b = append(b, ", "...)
		b = appendRate(b, float64(p.lines)/d)
		b = append(b, " lines/s"...)
	}
	n := len(b) - 1
	for i := n; i < p.shown; i++ {
		b = append(b, ' ')
	}
	p.shown, p.ever = n, true
	if final {
		b = append(b, '\n')
		p.shown = 0
	}
	p.buf = b
	p.w.Write(b) // a failure to show progress is no failure of the run
}

// appendCount appends n with commas between thousands: 12,000.
func appendCount(b []byte, n int64) []byte {
	s := strconv.FormatInt(n, 10)
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return b
}

// appendRate appends a rate for a person to read: below 10 with one decimal
// (2.5 lines a second), else rounded to a whole number, with commas.
func appendRate(b []byte, v float64) []byte {
	if v < 10 {
		return strconv.AppendFloat(b, v, 'f', 1, 64)
	}
	return appendCount(b, int64(v+0.5))
}
