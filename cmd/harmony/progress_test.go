package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptedClock returns the times of a script, in seconds from an arbitrary
// start, one per call, and fails the test when the script runs out.
func scriptedClock(t *testing.T, secs ...float64) func() time.Time {
	t.Helper()
	base := time.Date(2025, 8, 5, 12, 0, 0, 0, time.UTC)
	i := 0
	return func() time.Time {
		if !assert.Less(t, i, len(secs), "the clock was read more than the %d times scripted", len(secs)) {
			return base.Add(time.Hour)
		}
		s := secs[i]
		i++
		return base.Add(time.Duration(s * float64(time.Second)))
	}
}

// runWatched runs the command with progress on and the clock given.
func runWatched(t *testing.T, now func() time.Time, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runIn(console{progress: true, now: now}, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestProgress checks the progress line, exactly, with a scripted clock: the
// clock is read once at the start, once for each line done and once at the
// end, and the count is shown from a second on and at most every 250ms.
func TestProgress(t *testing.T) {
	// Six lines done (and two blank ones): at 1.2s the count is shown, at
	// 1.3s it is too soon to show it again, at 1.5s it is shown, and at
	// the end the final count of input lines ends the line.
	in := "[1]\n[1]\n\n[1]\n[1]\n[1]\n[1]\n\n"
	code, stdout, stderr := runWatched(t, scriptedClock(t, 0, 0.3, 0.6, 0.9, 1.2, 1.3, 1.5, 2.0), in, "decode")
	want := "\rdecode: 5 lines, 4.2 lines/s\rdecode: 7 lines, 4.7 lines/s\rdecode: 8 lines, 4.0 lines/s\n"
	assert.Equal(t, 0, code, "decode: exit")
	assert.Equal(t, want, stderr, "decode: stderr")
	assert.Len(t, outputLines(t, stdout), 6, "decode: stdout")

	// With one worker or several, the same: a shorter line is padded to
	// cover the one before it.
	secs := []float64{0}
	for range 99 {
		secs = append(secs, 0.5)
	}
	secs = append(secs, 1.0, 2.0, 2.0)
	in = strings.Repeat(userHi+"\n", 101)
	want = "\rrender: 100 lines, 100 lines/s\rrender: 101 lines, 51 lines/s \rrender: 101 lines, 51 lines/s\n"
	for _, workers := range []string{"1", "3"} {
		code, stdout, stderr = runWatched(t, scriptedClock(t, secs...), in, "render", "--workers", workers)
		assert.Equal(t, 0, code, "render --workers %s: exit", workers)
		assert.Equal(t, want, stderr, "render --workers %s: stderr", workers)
		assert.Equal(t, 101, len(outputLines(t, stdout)), "render --workers %s: output lines", workers)
	}

	// A warning takes the progress line off the screen; it comes back
	// below.
	in = completion + "[200006,1428,200008,3686,200007]\n" + completion
	code, _, stderr = runWatched(t, scriptedClock(t, 0, 1.0, 1.1, 1.5, 2.0), in, "parse")
	want = "\rparse: 1 line, 1.0 lines/s" + "\r" + strings.Repeat(" ", 26) + "\r" +
		"harmony parse: line 2: warning: the tokens start with <|start|>, which --role assistant reads as header text; for tokens that start at <|start|>, use --role none\n" +
		"\rparse: 3 lines, 2.0 lines/s\rparse: 3 lines, 1.5 lines/s\n"
	assert.Equal(t, 0, code, "parse with a warning: exit")
	assert.Equal(t, want, stderr, "parse with a warning: stderr")

	// An error message comes after the final count.
	var out, errOut bytes.Buffer
	code = runIn(console{progress: true, now: scriptedClock(t, 0, 1.0, 1.1, 2.0)}, []string{"decode"},
		failingReader{strings.NewReader("[1]\n[1]\n")}, &out, &errOut)
	want = "\rdecode: 1 line, 1.0 lines/s\rdecode: 2 lines, 1.0 lines/s\n" +
		"harmony decode: line 3: reading standard input: connection reset\n"
	assert.Equal(t, 1, code, "read error: exit")
	assert.Equal(t, want, errOut.String(), "read error: stderr")
}

// TestProgressSilent checks that a run shorter than a second shows nothing
// even when watched, and that an unwatched run neither shows anything nor
// reads the clock.
func TestProgressSilent(t *testing.T) {
	in := "[1]\n[1]\n[1]\n"
	code, _, stderr := runWatched(t, scriptedClock(t, 0, 0.3, 0.6, 0.9), in, "decode")
	assert.Equal(t, 0, code, "short run: exit")
	assert.Empty(t, stderr, "short run: stderr")
	var out, errOut bytes.Buffer
	code = runIn(console{now: scriptedClock(t)}, []string{"decode"}, strings.NewReader(in), &out, &errOut)
	assert.Equal(t, 0, code, "unwatched: exit")
	assert.Empty(t, errOut.String(), "unwatched: stderr")
	// encode and count have no lines to count.
	code, _, stderr = runWatched(t, scriptedClock(t, 0), "hello", "count")
	assert.Equal(t, 0, code, "count: exit")
	assert.Empty(t, stderr, "count: stderr")
}

// TestWatched checks the decision to show progress: standard error must be
// a terminal (a character device; /dev/null stands in for one) that neither
// standard input nor standard output is.
func TestWatched(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devNull.Close()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		name           string
		stdin          io.Reader
		stdout, stderr io.Writer
		want           bool
	}{
		{"stderr a terminal", r, w, devNull, true},
		{"stderr a terminal, no files", &buf, &buf, devNull, true},
		{"stderr a pipe", r, &buf, w, false},
		{"stderr a buffer", r, w, &buf, false},
		{"stdout the same terminal", r, devNull, devNull, false},
		{"stdin the same terminal", devNull, w, devNull, false},
	} {
		assert.Equal(t, tc.want, watched(tc.stdin, tc.stdout, tc.stderr), "%s: watched", tc.name)
	}
}

func TestAppendCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12000, "12,000"}, {999999, "999,999"}, {1234567, "1,234,567"}} {
		assert.Equal(t, tc.want, string(appendCount(nil, tc.n)), "appendCount(%d)", tc.n)
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0.0"}, {0.04, "0.0"}, {2.5, "2.5"}, {9.94, "9.9"}, {10, "10"}, {3099.6, "3,100"}, {1e6, "1,000,000"}} {
		assert.Equal(t, tc.want, string(appendRate(nil, tc.v)), "appendRate(%v)", tc.v)
	}
}
