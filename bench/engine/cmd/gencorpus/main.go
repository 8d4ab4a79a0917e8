// Command gencorpus writes enginebench's corpora (see package corpus) to a
// directory as NAME.txt.
//
//	go run ./cmd/gencorpus -out corpora [-size 5000000] [-only prose,cjk]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/go-harmony/harmony/bench/engine/corpus"
)

func main() {
	out := flag.String("out", "corpora", "output directory")
	size := flag.Int("size", corpus.DefaultSize, "bytes per corpus")
	seeds := flag.String("seeds", "", "seed directory (default: internal/o200k/testdata/corpus above the working directory)")
	only := flag.String("only", "", "comma-separated corpus names (default: all)")
	flag.Parse()
	if err := run(*out, *seeds, *only, *size); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(out, seeds, only string, size int) error {
	if seeds == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if seeds, err = corpus.FindSeeds(wd); err != nil {
			return err
		}
	}
	g, err := corpus.NewGenerator(seeds)
	if err != nil {
		return err
	}
	var names []string
	if only != "" {
		names = strings.Split(only, ",")
	}
	paths, err := g.WriteAll(out, names, size)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Println(p)
	}
	return nil
}
