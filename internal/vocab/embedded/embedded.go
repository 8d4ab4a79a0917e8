// Package embedded gives the o200k_base.tiktoken file that
// github.com/pkoukk/tiktoken-go-loader embeds, checked against its published
// SHA-256. It is the source the table generator of internal/o200k reads, and
// what tests and the benchmark peer build tiktoken-go from; the library does
// not import it (the loader module embeds several vocabularies).
package embedded

import (
	"fmt"

	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// O200kBase returns the embedded o200k_base.tiktoken file after checking its
// hash.
func O200kBase() ([]byte, error) {
	data, err := assets.Assets.ReadFile("o200k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("vocab: reading embedded o200k_base: %w", err)
	}
	if err := vocab.Verify(data); err != nil {
		return nil, err
	}
	return data, nil
}
