package harmony

// The tiktoken-go engine: the oracle the project's own o200k engine is
// checked against, and the peer in the benchmarks.

import (
	"bytes"

	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/go-harmony/harmony/internal/vocab/embedded"
	"github.com/pkoukk/tiktoken-go"
)

// tiktokenEngine encodes ordinary text with github.com/pkoukk/tiktoken-go
// configured with the o200k pattern and ranks: correct, and the oracle the
// project's own engine is tested against, but not fast.
type tiktokenEngine struct {
	tk *tiktoken.Tiktoken
}

// o200kPattern is the pre-tokenization pattern of o200k_base and
// o200k_harmony.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+` +
	`|\s+(?!\S)` +
	`|\s+`

// newTiktokenOracle builds tiktoken-go's engine from the embedded o200k_base
// file.
func newTiktokenOracle() (*tiktokenEngine, error) {
	data, err := embedded.O200kBase()
	if err != nil {
		return nil, err
	}
	ranks, err := vocab.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return newTiktokenEngine(ranks)
}

func newTiktokenEngine(ranks [][]byte) (*tiktokenEngine, error) {
	m := make(map[string]int, len(ranks))
	for i, b := range ranks {
		m[string(b)] = i
	}
	bpe, err := tiktoken.NewCoreBPE(m, map[string]int{}, o200kPattern)
	if err != nil {
		return nil, err
	}
	return &tiktokenEngine{tk: tiktoken.NewTiktoken(bpe, nil, nil)}, nil
}

func (t *tiktokenEngine) appendOrdinary(dst []Token, text string) []Token {
	if text == "" {
		return dst
	}
	for _, id := range t.tk.EncodeOrdinary(text) {
		dst = append(dst, Token(id))
	}
	return dst
}
