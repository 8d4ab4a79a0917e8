package harmony

// The tiktoken-go engine (internal/testsupport/tiktokenoracle): the oracle the project's
// own o200k engine is checked against, and the peer in the benchmarks.

import "github.com/go-harmony/harmony/internal/testsupport/tiktokenoracle"

// tiktokenEngine encodes ordinary text with tiktoken-go.
type tiktokenEngine struct {
	tk *tiktokenoracle.Oracle
}

// newTiktokenOracle returns the shared oracle.
func newTiktokenOracle() (*tiktokenEngine, error) {
	o, err := tiktokenoracle.Shared()
	if err != nil {
		return nil, err
	}
	return &tiktokenEngine{tk: o}, nil
}

func (t *tiktokenEngine) appendOrdinary(dst []Token, text string) []Token {
	for _, id := range t.tk.AppendEncode(nil, text) {
		dst = append(dst, Token(id))
	}
	return dst
}
