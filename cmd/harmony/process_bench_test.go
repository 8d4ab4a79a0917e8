package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/require"
)

// BenchmarkProcess compares whole processes: the harmony command against
// internal/cmd/tiktokenpeer, tiktoken-go doing the same work, on the large
// conversation of package benchdata (2,000 messages, 1.3M tokens), one process
// per iteration with standard input read from a file and standard output
// discarded. Besides the wall time, cpu-ms/op is the process's user and
// system CPU time (the runtime's collector works on other cores in parallel)
// and out-MB/op what it wrote.
//
//	Op=render: the conversation as one JSON line to token ids; harmony render
//	  (completion mode) against tiktokenpeer encode of the same texts.
//	Op=parse: its tokens (rendered with --mode conversation --reasoning keep)
//	  as one JSON line to messages; harmony parse against tiktokenpeer decode.
//	Op=stream: harmony stream on the same tokens, which writes a JSON object
//	  per token.
//
// SetBytes is the size of the text: that of the texts the peer encodes for
// render, of the decoded tokens for parse and stream.
//
//	go test -run '^$' -bench Process -benchtime 3x ./cmd/harmony/
func BenchmarkProcess(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the command and its tiktoken-go peer and runs them on megabytes")
	}
	dir := b.TempDir()
	harmonyBin := buildBinary(b, dir, "harmony", ".")
	peerBin := buildBinary(b, dir, "tiktokenpeer", "github.com/go-harmony/harmony/internal/testsupport/cmd/tiktokenpeer")

	conv := benchdata.Large()
	texts, err := benchdata.Texts(conv, nil)
	require.NoError(b, err)
	textSize := benchdata.Size(texts)
	convFile := filepath.Join(dir, "conversation.jsonl")
	require.NoError(b, os.WriteFile(convFile, append(conv, '\n'), 0o644))

	var out bytes.Buffer
	runProcess(b, convFile, &out, harmonyBin, "render", "--mode", "conversation", "--reasoning", "keep")
	tokFile := filepath.Join(dir, "tokens.jsonl")
	require.NoError(b, os.WriteFile(tokFile, out.Bytes(), 0o644))
	var toks []harmony.Token
	require.NoError(b, json.Unmarshal(out.Bytes(), &toks))
	decoded, err := testenc.Encoding(b).AppendBytes(nil, toks)
	require.NoError(b, err)

	for _, op := range []struct {
		name  string
		input string
		size  int
		impls []processImpl
	}{
		{"Op=render", convFile, textSize, []processImpl{
			{"Impl=harmony", harmonyBin, []string{"render"}},
			{"Impl=tiktoken-encode", peerBin, []string{"encode"}},
		}},
		{"Op=parse", tokFile, len(decoded), []processImpl{
			{"Impl=harmony", harmonyBin, []string{"parse", "--role", "none"}},
			{"Impl=tiktoken-decode", peerBin, []string{"decode"}},
		}},
		{"Op=stream", tokFile, len(decoded), []processImpl{
			{"Impl=harmony", harmonyBin, []string{"stream", "--role", "none"}},
		}},
	} {
		b.Run(op.name, func(b *testing.B) {
			for _, impl := range op.impls {
				b.Run(impl.name, func(b *testing.B) {
					b.SetBytes(int64(op.size))
					var cpu time.Duration
					var out discard
					for b.Loop() {
						cpu += runProcess(b, op.input, &out, impl.bin, impl.args...)
					}
					b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
					b.ReportMetric(float64(out)/1e6/float64(b.N), "out-MB/op")
				})
			}
		})
	}
}

// processImpl is one command line of BenchmarkProcess.
type processImpl struct {
	name string
	bin  string
	args []string
}

// buildBinary builds the package pkg into dir/name.
func buildBinary(b *testing.B, dir, name, pkg string) string {
	b.Helper()
	bin := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	require.NoError(b, err, "go build %s:\n%s", pkg, out)
	return bin
}

// runProcess runs bin with args, standard input read from the file input
// and standard output written to stdout, and returns its CPU time. The
// process must succeed without writing to standard error.
func runProcess(b *testing.B, input string, stdout interface{ Write([]byte) (int, error) }, bin string, args ...string) time.Duration {
	b.Helper()
	in, err := os.Open(input)
	require.NoError(b, err)
	defer in.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, stdout, &stderr
	require.NoError(b, cmd.Run(), "%s %v:\n%s", filepath.Base(bin), args, stderr.Bytes())
	require.Empty(b, stderr.String(), "%s %v: stderr", filepath.Base(bin), args)
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// discard is io.Discard that counts the bytes written to it.
type discard int64

func (d *discard) Write(p []byte) (int, error) {
	*d += discard(len(p))
	return len(p), nil
}
