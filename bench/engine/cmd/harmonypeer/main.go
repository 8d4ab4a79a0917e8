// Command harmonypeer is harmony-go's encode-speed peer for enginebench: it
// encodes files with internal/o200k's Engine.AppendEncode (o200k_base
// ordinary encoding) and speaks the peer protocol described in package
// internal/peer.
package main

import (
	"fmt"
	"os"

	"github.com/go-harmony/harmony/bench/engine/internal/peer"
	"github.com/go-harmony/harmony/internal/o200k"
)

func main() {
	e, err := o200k.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "harmonypeer:", err)
		os.Exit(1)
	}
	peer.Main(func(text string) ([]uint32, error) {
		return e.AppendEncode(nil, text), nil
	})
}
