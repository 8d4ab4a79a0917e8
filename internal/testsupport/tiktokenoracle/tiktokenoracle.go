// Package tiktokenoracle builds github.com/pkoukk/tiktoken-go for o200k_base:
// the oracle the project's own engine (internal/o200k) is checked against,
// and the peer its benchmarks measure against. It is the one place that
// knows how tiktoken-go is configured; the library itself does not use it.
package tiktokenoracle

import (
	"bytes"
	"sync"

	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/go-harmony/harmony/internal/vocab/embedded"
	"github.com/pkoukk/tiktoken-go"
)

// Pattern is the pre-tokenization pattern of o200k_base (and o200k_harmony),
// as the reference implementation compiles it.
const Pattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+` +
	`|\s+(?!\S)` +
	`|\s+`

// Oracle is tiktoken-go configured with the o200k_base ranks and Pattern, and
// no special tokens (it is only ever asked for ordinary text).
type Oracle struct {
	Tiktoken *tiktoken.Tiktoken
	Ranks    [][]byte // the bytes of each rank
}

// New builds an Oracle from the embedded, hash-checked o200k_base file. Each
// call builds a new one (hundreds of milliseconds); Shared caches one.
func New() (*Oracle, error) {
	data, err := embedded.O200kBase()
	if err != nil {
		return nil, err
	}
	ranks, err := vocab.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m := make(map[string]int, len(ranks))
	for i, b := range ranks {
		m[string(b)] = i
	}
	bpe, err := tiktoken.NewCoreBPE(m, map[string]int{}, Pattern)
	if err != nil {
		return nil, err
	}
	return &Oracle{Tiktoken: tiktoken.NewTiktoken(bpe, nil, nil), Ranks: ranks}, nil
}

// Shared returns one Oracle built on first use.
var Shared = sync.OnceValues(New)

// AppendEncode appends the ordinary tokens of text to dst.
func (o *Oracle) AppendEncode(dst []uint32, text string) []uint32 {
	if text == "" {
		return dst
	}
	for _, id := range o.Tiktoken.EncodeOrdinary(text) {
		dst = append(dst, uint32(id))
	}
	return dst
}
