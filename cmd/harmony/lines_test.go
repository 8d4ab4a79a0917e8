package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineReader checks that lineReader reads the lines and errors that
// bufio.Reader.ReadBytes reads, from a regular file, a reader with Len and
// a plain reader, with lines longer than the read buffer, short and long
// lines mixed, and a last line without a newline.
func TestLineReader(t *testing.T) {
	long := func(n int, c byte) string { return strings.Repeat(string(c), n) }
	inputs := []string{
		"",
		"\n",
		"a",
		"a\nb\n",
		"a\nb",
		long(1<<16-1, 'x') + "\n" + long(1<<16, 'y') + "\n" + long(1<<16+1, 'z'),
		long(3<<20, 'x') + "\n",
		long(3<<20, 'x'),
		"short\n" + long(200<<10, 'a') + "\n" + long(3<<20, 'b') + "\n" + long(100<<10, 'c') + "\nend\n",
		long(2<<20, 'a') + "\n" + long(100<<10, 'b') + "\n" + long(1<<20, 'c') + "\n" + long(3<<20, 'd'),
	}
	dir := t.TempDir()
	for i, in := range inputs {
		want := readAllLines(t, func(r *bufio.Reader) ([]byte, error) { return r.ReadBytes('\n') }, bufio.NewReaderSize(strings.NewReader(in), 1<<16))
		file := filepath.Join(dir, "in")
		require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
		f, err := os.Open(file)
		require.NoError(t, err)
		for name, r := range map[string]io.Reader{
			"file":    f,
			"Len":     strings.NewReader(in),
			"unknown": struct{ io.Reader }{strings.NewReader(in)},
		} {
			lr := newLineReader(r)
			got := readAllLines(t, func(*bufio.Reader) ([]byte, error) { return lr.readLine() }, nil)
			if !assert.Equal(t, len(want), len(got), "input %d, %s: lines", i, name) {
				continue
			}
			for k := range got {
				// Not assert.Equal: the lines are megabytes long.
				assert.True(t, bytes.Equal(got[k], want[k]), "input %d, %s: line %d differs (%d bytes, want %d)", i, name, k, len(got[k]), len(want[k]))
			}
		}
		f.Close()
	}
}

// readAllLines reads lines with read until io.EOF, keeping each, the last
// one too if it is not empty.
func readAllLines(t *testing.T, read func(*bufio.Reader) ([]byte, error), r *bufio.Reader) [][]byte {
	t.Helper()
	var lines [][]byte
	for {
		line, err := read(r)
		if len(line) > 0 || err == nil {
			lines = append(lines, bytes.Clone(line))
		}
		if errors.Is(err, io.EOF) {
			return lines
		}
		require.NoError(t, err)
	}
}
