// Command pkoukkpeer is the encode-speed peer for github.com/pkoukk/tiktoken-go
// (the project's tokenizer oracle, built as internal/testsupport/tiktokenoracle
// builds it: o200k_base ranks, no special tokens), speaking the enginebench
// peer protocol (see package internal/peer). Its merge is quadratic in the
// piece length, so it is very slow on cjk-long. EncodeOrdinary returns
// []int; the conversion to []uint32 is inside the timed call.
package main

import (
	"fmt"
	"os"

	"github.com/go-harmony/harmony/bench/engine/internal/peer"
	"github.com/go-harmony/harmony/internal/testsupport/tiktokenoracle"
)

func main() {
	o, err := tiktokenoracle.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pkoukkpeer:", err)
		os.Exit(1)
	}
	peer.Main(func(text string) ([]uint32, error) {
		ids := o.Tiktoken.EncodeOrdinary(text)
		out := make([]uint32, len(ids))
		for i, id := range ids {
			out[i] = uint32(id)
		}
		return out, nil
	})
}
