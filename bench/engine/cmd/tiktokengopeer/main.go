// Command tiktokengopeer is the encode-speed peer for
// github.com/tiktoken-go/tokenizer's o200k_base codec, speaking the
// enginebench peer protocol (see package internal/peer). The codec's Encode
// returns []uint; the conversion to []uint32 is inside the timed call.
package main

import (
	"fmt"
	"os"

	"github.com/go-harmony/harmony/bench/engine/internal/peer"
	"github.com/tiktoken-go/tokenizer"
)

func main() {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tiktokengopeer:", err)
		os.Exit(1)
	}
	peer.Main(func(text string) ([]uint32, error) {
		ids, _, err := codec.Encode(text)
		if err != nil {
			return nil, err
		}
		out := make([]uint32, len(ids))
		for i, id := range ids {
			out[i] = uint32(id)
		}
		return out, nil
	})
}
