package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// datasetLines returns n lines of a generated dataset: conversations of
// every shape and of very different sizes (so that workers finish out of
// order), with blank lines and lines that fail in between.
func datasetLines(t testing.TB, n int, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	weather := harmony.NewToolDescription("get_weather", "Gets the weather.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`))
	text := func() string {
		var b strings.Builder
		k := r.IntN(2)
		if r.IntN(30) == 0 {
			k = 20 + r.IntN(20) // now and then a long one
		}
		for ; k >= 0; k-- {
			b.WriteString(benchdata.Paragraphs[r.IntN(len(benchdata.Paragraphs))])
		}
		return b.String()
	}
	var out bytes.Buffer
	for i := range n {
		switch r.IntN(50) {
		case 0:
			out.WriteString("\n  \t\n") // blank lines
		case 1:
			out.WriteString("{not json\n")
		case 2:
			out.WriteString(`{"messages":[{"role":"user","content":"x","tool_calls":[]}]}` + "\n")
		case 3:
			out.WriteString(`[{"role":"robot","content":"x"}]` + "\n")
		}
		var msgs []harmony.Message
		if r.IntN(2) == 0 {
			msgs = append(msgs, harmony.NewSystemMessage(harmony.NewSystemContent().WithConversationStartDate("2025-06-28")))
		}
		if r.IntN(3) == 0 {
			msgs = append(msgs, harmony.NewDeveloperMessage(harmony.NewDeveloperContent().WithInstructions("Be brief.").WithFunctionTools(weather)))
		}
		for turns := 1 + r.IntN(2); turns > 0; turns-- {
			msgs = append(msgs, harmony.NewTextMessage(harmony.RoleUser, text()))
			msgs = append(msgs, harmony.NewTextMessage(harmony.RoleAssistant, text()).WithChannel("analysis"))
			if r.IntN(3) == 0 {
				msgs = append(msgs,
					harmony.NewTextMessage(harmony.RoleAssistant, `{"city":"Oslo"}`).WithChannel("commentary").
						WithRecipient("functions.get_weather").WithContentType("<|constrain|>json"),
					harmony.NewToolMessage("functions.get_weather", text()).WithRecipient("assistant").WithChannel("commentary"),
					harmony.NewTextMessage(harmony.RoleAssistant, text()).WithChannel("analysis"))
			}
			msgs = append(msgs, harmony.NewTextMessage(harmony.RoleAssistant, text()).WithChannel("final"))
		}
		b, err := json.Marshal(harmony.NewConversation(msgs...))
		require.NoError(t, err)
		if i%7 == 0 {
			out.WriteString("   ") // white space around a line is trimmed
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestWorkersOutput checks that --workers N writes exactly the bytes, and
// exits with the status, of --workers 1: on 10,000 conversations with
// --mask, and on 300 in the other render modes; when sampled, on 1,000 and
// 100 (the race detector checks the goroutines on fewer).
func TestWorkersOutput(t *testing.T) {
	n, m := 10000, 300
	if sample.Sampled() {
		n, m = 1000, 100
	}
	for _, tc := range []struct {
		lines   int
		args    []string
		workers []string
	}{
		{n, []string{"render", "--mode", "training", "--mask"}, []string{"2"}},
		{m, []string{"render", "--mode", "training", "--mask"}, []string{"3", "8"}},
		{m, []string{"render", "--mode", "training", "--mask", "--learn-all"}, []string{"2"}},
		{m, []string{"render"}, []string{"2"}},
		{m, []string{"render", "--mode", "conversation", "--text"}, []string{"2"}},
		{m, []string{"render", "--mode", "training", "--reasoning", "guide"}, []string{"2"}},
	} {
		input := string(datasetLines(t, tc.lines, 7))
		code1, want, stderr := runCLI(t, input, append(tc.args, "--workers", "1")...)
		require.Equal(t, 1, code1, "%v --workers 1: exit (the dataset has failing lines)", tc.args)
		require.Empty(t, stderr, "%v --workers 1: stderr", tc.args)
		for _, workers := range tc.workers {
			code, got, stderr := runCLI(t, input, append(tc.args, "--workers", workers)...)
			assert.Equal(t, code1, code, "%v --workers %s: exit", tc.args, workers)
			assert.Empty(t, stderr, "%v --workers %s: stderr", tc.args, workers)
			assert.True(t, got == want, "%v --workers %s: output differs from --workers 1 (%d and %d bytes)", tc.args, workers, len(got), len(want))
		}
		lines := outputLines(t, want)
		assert.GreaterOrEqual(t, len(lines), tc.lines, "%v: output lines for the conversations", tc.args)
	}
}

// TestMaskLine checks --mask's output against the library's.
func TestMaskLine(t *testing.T) {
	in := `[{"role":"user","content":"Q"},{"role":"assistant","content":"F","channel":"final","thinking":"T"}]`
	code, stdout, stderr := runCLI(t, in, "render", "--mode", "training", "--mask")
	require.Equal(t, 0, code, "exit: %s", stderr)
	var conv harmony.Conversation
	require.NoError(t, json.Unmarshal([]byte(in), &conv))
	toks, mask, err := testenc.Encoding(t).RenderTrainingExample(conv, nil)
	require.NoError(t, err)
	var got struct {
		IDs  []harmony.Token `json:"ids"`
		Mask []int           `json:"mask"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	wantMask := make([]int, len(mask))
	for i, m := range mask {
		if m {
			wantMask[i] = 1
		}
	}
	assert.Equal(t, fmt.Sprint(toks), fmt.Sprint(got.IDs), "ids")
	assert.Equal(t, fmt.Sprint(wantMask), fmt.Sprint(got.Mask), "mask")
	assert.True(t, strings.HasPrefix(stdout, `{"ids":[200006,1428,200008,`), "shape: %s", stdout)
	assert.True(t, strings.HasSuffix(stdout, ",1,1]}\n"), "shape: %s", stdout)
	code, stdout, _ = runCLI(t, `{"messages":[]}`, "render", "--mode", "training", "--mask")
	assert.Equal(t, 0, code, "empty conversation: exit")
	assert.Equal(t, `{"ids":[],"mask":[]}`+"\n", stdout, "empty conversation")
}

// TestRenderUsageErrors checks the flag combinations render refuses.
func TestRenderUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--mask"},
		{"--mode", "completion", "--mask"},
		{"--mode", "training", "--mask", "--text"},
		{"--mode", "training", "--mask", "--reasoning", "guide"},
		{"--mode", "training", "--mask", "--reasoning", "keep"},
		{"--mode", "training", "--learn-all"},
		{"--workers", "0"},
		{"--workers", "x"},
	} {
		code, stdout, stderr := runCLI(t, userHi+"\n", append([]string{"render"}, args...)...)
		assert.Equal(t, 2, code, "%v: exit", args)
		assert.Empty(t, stdout, "%v: stdout", args)
		assert.Contains(t, stderr, "usage: harmony render", "%v: stderr", args)
	}
}

// TestWorkersInteractive checks that with several workers a client that
// writes a line and waits still gets its answer before it writes the next.
func TestWorkersInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		code := run([]string{"render", "--workers", "2"}, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewReader(outR)
	for i := range 3 {
		_, err := io.WriteString(inW, userHi+"\n")
		require.NoError(t, err)
		got := make(chan string, 1)
		go func() {
			s, _ := lines.ReadString('\n')
			got <- s
		}()
		select {
		case s := <-got:
			require.True(t, strings.HasPrefix(s, "[200006,"), "line %d: %q", i, s)
		case <-time.After(time.Minute): // only ends a hung test
			require.Fail(t, "no answer while the client waits", "line %d", i)
		}
	}
	inW.Close()
	rest, _ := io.ReadAll(lines)
	assert.Empty(t, rest, "unexpected output")
	assert.Equal(t, 0, <-done, "exit")
}

// failingWriter fails once n bytes have been written.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// failingReader returns its data, then an error.
type failingReader struct{ r io.Reader }

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

// TestWorkersIOErrors checks that a failed write stops the command, and that
// a failed read comes after the output of every line read before it, as with
// one worker.
func TestWorkersIOErrors(t *testing.T) {
	input := datasetLines(t, 500, 3)
	var stderr bytes.Buffer
	code := run([]string{"render", "--workers", "2"}, bytes.NewReader(input), &failingWriter{n: 1 << 18}, &stderr)
	assert.Equal(t, 1, code, "write error: exit")
	assert.Contains(t, stderr.String(), "writing standard output: disk full", "write error")
	// The read error names the line it cut short.
	cut := input[:len(input)/2]
	wantErr := fmt.Sprintf("harmony render: line %d: reading standard input: connection reset\n", bytes.Count(cut, []byte("\n"))+1)
	var outs [2]string
	for i, workers := range []string{"1", "2"} {
		var out, stderr bytes.Buffer
		code := run([]string{"render", "--workers", workers}, failingReader{bytes.NewReader(cut)}, &out, &stderr)
		assert.Equal(t, 1, code, "--workers %s, read error: exit", workers)
		assert.Equal(t, wantErr, stderr.String(), "--workers %s, read error", workers)
		outs[i] = out.String()
	}
	assert.NotEmpty(t, outs[0], "read error: no output")
	assert.True(t, outs[0] == outs[1], "read error: outputs differ (%d and %d bytes)", len(outs[0]), len(outs[1]))
}

// BenchmarkRenderWorkers renders a dataset of 2,000 generated conversations
// (about 10 MB) as training examples with masks, in-process, with one worker
// and with two:
//
//	go test -run '^$' -bench RenderWorkers -count 5 ./cmd/harmony/
func BenchmarkRenderWorkers(b *testing.B) {
	input := datasetLines(b, 2000, 11)
	for _, workers := range []string{"1", "2"} {
		b.Run("Workers="+workers, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			for b.Loop() {
				var stderr bytes.Buffer
				code := run([]string{"render", "--mode", "training", "--mask", "--workers", workers}, bytes.NewReader(input), io.Discard, &stderr)
				require.Equal(b, 1, code, "exit: %s", stderr.String())
			}
		})
	}
}
