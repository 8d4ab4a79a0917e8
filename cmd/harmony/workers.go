package main

// This file runs a line command's work on several goroutines and keeps its
// output in input order. One goroutine reads lines and queues each twice:
// on the workers' channel, and on an ordered channel that the writer (the
// calling goroutine) drains, waiting for each line's result in turn. A line
// done early waits for the lines before it, so the output is byte for byte
// that of one worker. The reader also queues a flush marker before each read
// that may block, so that, as in eachLine, a client that writes a line and
// waits gets its answer, while bulk input costs one flush per buffer, and a
// marker with the number of lines read when the input ends; the writer counts
// the lines done for the progress line.

import (
	"errors"
	"sync"

	"github.com/go-harmony/harmony"
)

// lineFunc handles one input line: it appends the JSON of its output line,
// without the newline, to b and returns it, or returns an error that becomes
// that line's {"error":...}. A line that ends in a list of token ids may
// leave them out of b and return them from getIDs instead: the goroutine
// that writes the output writes them after b, as a JSON array, straight into
// its buffer, and then puts them back. A long conversation's ids are
// megabytes of text, which then need no buffer of their own. A lineFunc is
// used by one goroutine at a time.
type lineFunc func(b, line []byte) (out []byte, ids *[]harmony.Token, err error)

// lineJob is one line's way through the workers, or a marker for the writer.
type lineJob struct {
	n      int // the line's number
	line   []byte
	out    []byte
	ids    *[]harmony.Token // written after out, if not nil
	failed bool
	done   chan struct{} // closed when out is ready
	flush  bool          // a marker: flush what is written
	end    bool          // a marker: the input ended after n lines
	err    error         // a marker: reading failed
}

// formatLine runs fn on line n and returns the output line, without the
// newline, appended to b: fn's JSON (and its ids), or {"error":"line N: ..."}
// when it fails.
func formatLine(fn lineFunc, b []byte, n int, line []byte) (out []byte, ids *[]harmony.Token, failed bool) {
	start := len(b)
	out, ids, err := fn(b, line)
	if err != nil {
		putIDs(ids)
		return appendErrorLine(b[:start], n, err), nil, true
	}
	return out, ids, false
}

// idPool holds the token slices of getIDs.
var idPool sync.Pool

// getIDs returns an empty token slice with room for at least n tokens.
func getIDs(n int) *[]harmony.Token {
	if p, ok := idPool.Get().(*[]harmony.Token); ok && cap(*p) >= n {
		return p
	}
	p := make([]harmony.Token, 0, n)
	return &p
}

// putIDs gives back a slice of getIDs, if not nil, for reuse.
func putIDs(p *[]harmony.Token) {
	if p != nil {
		*p = (*p)[:0]
		idPool.Put(p)
	}
}

// eachLineWorkers is eachLine for the lineFunc that newFn makes, run on
// workers goroutines (each with a lineFunc of its own) with the output in
// input order. With one worker it runs on the calling goroutine. When
// writing fails it returns at once; the reading goroutine then stops at its
// next line, or when a blocked read returns.
func (c *cli) eachLineWorkers(workers int, newFn func() lineFunc) error {
	if workers <= 1 {
		fn := newFn()
		var buf []byte
		return c.eachLine(func(n int, line []byte) (any, error) {
			out, ids, failed := formatLine(fn, buf[:0], n, line)
			buf = out
			if failed {
				c.failed = true
			}
			if ids != nil {
				return idsLine{out, ids}, nil
			}
			return rawLine(out), nil
		})
	}

	jobs := make(chan *lineJob, workers)
	order := make(chan *lineJob, 4*workers)
	stop := make(chan struct{})
	defer close(stop)
	bufs := sync.Pool{New: func() any { return new([]byte) }}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			fn := newFn()
			for j := range jobs {
				b := bufs.Get().(*[]byte)
				j.out, j.ids, j.failed = formatLine(fn, (*b)[:0], j.n, j.line)
				close(j.done)
			}
		})
	}
	go c.readLines(jobs, order, stop)

	for j := range order {
		switch {
		case j.flush:
			if err := c.out.flush(); err != nil {
				return err
			}
			continue
		case j.end:
			c.progress.count(j.n)
			continue
		case j.err != nil:
			wg.Wait()
			return j.err
		}
		<-j.done
		if j.failed {
			c.failed = true
		}
		var err error
		if j.ids != nil {
			err = c.out.write(idsLine{j.out, j.ids})
		} else {
			err = c.out.writeBuffer(append(j.out, '\n'))
		}
		if err != nil {
			return err
		}
		c.progress.line(j.n)
		if cap(j.out) <= 1<<20 {
			b := j.out[:0]
			bufs.Put(&b)
		}
	}
	wg.Wait()
	return nil
}

// readLines reads standard input and queues each non-blank line (white space
// trimmed, with its number) on jobs and on order, with the markers
// eachLineWorkers expects on order. It closes both channels when input ends
// or fails, or when stop is closed.
func (c *cli) readLines(jobs, order chan<- *lineJob, stop <-chan struct{}) {
	defer close(order)
	defer close(jobs)
	errStopped := errors.New("stopped")
	send := func(ch chan<- *lineJob, j *lineJob) error {
		select {
		case ch <- j:
			return nil
		case <-stop:
			return errStopped
		}
	}
	lines, err := scanLines(c.stdin, func() error {
		return send(order, &lineJob{flush: true})
	}, func(n int, line []byte) error {
		j := &lineJob{n: n, line: line, done: make(chan struct{})}
		if err := send(order, j); err != nil {
			return err
		}
		return send(jobs, j)
	})
	switch {
	case err == nil:
		send(order, &lineJob{n: lines, end: true})
	case err != errStopped:
		send(order, &lineJob{err: err})
	}
}
