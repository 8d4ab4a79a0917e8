// Package vocab reads o200k_base rank files, the vocabulary o200k_harmony is
// built on, and checks them against the published SHA-256, so that a build
// that picked up a different file fails loudly instead of tokenizing
// differently. The file itself comes from package embedded, which only the
// table generator, tests and tools import: the library runs on the
// precomputed table of internal/o200k.
package vocab

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// O200kBaseSHA256 is the SHA-256 of the published o200k_base.tiktoken file.
const O200kBaseSHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

// O200kBaseRanks is the number of ranks in o200k_base (ids 0..199997).
const O200kBaseRanks = 199998

// ErrHash reports a rank file whose SHA-256 is not the expected one.
var ErrHash = errors.New("vocab: rank file hash mismatch")

// Verify checks that data is the published o200k_base.tiktoken file.
func Verify(data []byte) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != O200kBaseSHA256 {
		return fmt.Errorf("%w: got %s, want %s", ErrHash, got, O200kBaseSHA256)
	}
	return nil
}

// Parse reads a tiktoken rank file ("base64 rank" per line) and returns the
// bytes of each rank, indexed by rank. Ranks must be dense from 0.
func Parse(r io.Reader) ([][]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	out := make([][]byte, 0, O200kBaseRanks)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimRight(sc.Bytes(), "\r")
		if len(text) == 0 {
			continue
		}
		sp := bytes.IndexByte(text, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("vocab: line %d: want \"token rank\"", line)
		}
		tok := make([]byte, base64.StdEncoding.DecodedLen(sp))
		n, err := base64.StdEncoding.Decode(tok, text[:sp])
		if err != nil {
			return nil, fmt.Errorf("vocab: line %d: %w", line, err)
		}
		rank, err := strconv.Atoi(string(text[sp+1:]))
		if err != nil || rank < 0 {
			return nil, fmt.Errorf("vocab: line %d: bad rank %q", line, text[sp+1:])
		}
		if rank != len(out) {
			return nil, fmt.Errorf("vocab: line %d: rank %d out of order (want %d)", line, rank, len(out))
		}
		out = append(out, tok[:n:n])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("vocab: empty rank file")
	}
	return out, nil
}
