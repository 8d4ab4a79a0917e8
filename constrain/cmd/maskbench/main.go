// Command maskbench runs package constrain over JSONSchemaBench's MaskBench
// (github.com/guidance-ai/jsonschemabench, maskbench/data): each schema is
// compiled, and each of its test instances is serialized compactly and
// indented, tokenized with o200k_harmony and fed token by token, computing
// the mask before every token. It prints the table of the MaskBench README:
// schemas passing, compile errors, validation errors (a valid instance
// blocked), invalidation errors (an invalid instance let through), the time
// per mask and the time to the first mask (compile plus one mask). One
// thread.
//
//	go run ./constrain/cmd/maskbench [-data ../shared/maskbench/maskbench.jsonl.gz] [-every 1] [-v]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/testsupport/maskbench"
)

// main runs the benchmark over the entries selected by -every and prints
// the summary; a mask that disagrees with Accept is printed as a mismatch.
func main() {
	data := flag.String("data", "../shared/maskbench/maskbench.jsonl.gz", "MaskBench file")
	every := flag.Int("every", 1, "run every n-th schema only")
	verbose := flag.Bool("v", false, "print each failure")
	errs := flag.Bool("errors", false, "print each compile error")
	ignoreFormats := flag.Bool("ignore-formats", false, "Options.IgnoreFormats")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile")
	slow := flag.Float64("slow", 0, "print masks slower than this many µs")
	flag.Parse()
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(400)

	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		log.Fatal(err)
	}
	entries, err := maskbench.Load(*data, *every)
	if err != nil {
		log.Fatal(err)
	}
	// Warm the vocabulary trie (built once per Encoding).
	if _, err := constrain.CompileJSONSchema(enc, []byte(`{}`), nil); err != nil {
		log.Fatal(err)
	}
	opts := &constrain.Options{IgnoreFormats: *ignoreFormats}

	var (
		total, withTests, compileErr, passing, passingTested       int
		valErrSchemas, invalErrSchemas, valErr, invalErr, mismatch int
		maskTimes                                                  []float64 // µs
		firstTimes                                                 []float64
		grammarBytes                                               []float64
		compileKinds                                               = map[string]int{}
	)
	mask := []uint64(nil)
	for _, e := range entries {
		total++
		if len(e.Tests) > 0 {
			withTests++
		}
		start := time.Now()
		g, err := constrain.CompileJSONSchema(enc, e.Schema, opts)
		if err != nil {
			compileErr++
			compileKinds[errKind(err)]++
			if *errs {
				fmt.Printf("compile %s: %v\n", e.Name, err)
			}
			continue
		}
		if len(mask) != g.MaskWords() {
			mask = make([]uint64, g.MaskWords())
		}
		m := g.NewMatcher()
		m.FillMask(mask)
		firstTimes = append(firstTimes, float64(time.Since(start).Nanoseconds())/1e3)
		grammarBytes = append(grammarBytes, float64(g.Stats().Bytes))
		okSchema := true
		hadVal, hadInval := false, false
		for ti, tc := range e.Tests {
			var compact, indented bytes.Buffer
			if err := json.Compact(&compact, tc.Data); err != nil {
				log.Fatalf("%s: %v", e.Name, err)
			}
			if err := json.Indent(&indented, tc.Data, "", "  "); err != nil {
				log.Fatalf("%s: %v", e.Name, err)
			}
			for _, text := range []string{compact.String(), indented.String()} {
				toks := enc.EncodeOrdinary(text)
				m.Reset()
				blocked := -1
				for k, tok := range toks {
					t0 := time.Now()
					m.FillMask(mask)
					dt := float64(time.Since(t0).Nanoseconds()) / 1e3
					maskTimes = append(maskTimes, dt)
					if *slow > 0 && dt > *slow {
						pre, _ := enc.AppendBytes(nil, toks[:k])
						fmt.Printf("SLOW %.0fµs %s threads=%d after %.80q\n", dt, e.Name, m.Threads(), pre[max(0, len(pre)-80):])
					}
					bit := mask[tok/64]&(1<<(tok%64)) != 0
					err := m.Accept(tok)
					if bit != (err == nil) {
						mismatch++
						fmt.Printf("MISMATCH %s test %d token %d: mask %v, accept %v\n", e.Name, ti, k, bit, err)
					}
					if err != nil {
						blocked = k
						break
					}
				}
				accepted := blocked < 0 && m.CanEnd()
				switch {
				case tc.Valid && !accepted:
					valErr++
					hadVal = true
					okSchema = false
					if *verbose {
						fmt.Printf("VALIDATION %s test %d: blocked at token %d of %d: %.200q\n", e.Name, ti, blocked, len(toks), text)
					}
				case !tc.Valid && accepted:
					invalErr++
					hadInval = true
					okSchema = false
					if *verbose {
						fmt.Printf("INVALIDATION %s test %d: %.300q\n", e.Name, ti, text)
					}
				}
			}
		}
		if hadVal {
			valErrSchemas++
		}
		if hadInval {
			invalErrSchemas++
		}
		if okSchema {
			passing++
			if len(e.Tests) > 0 {
				passingTested++
			}
		}
	}
	fmt.Printf("schemas: %d (%d with tests)\n", total, withTests)
	fmt.Printf("passing: %d (%.1f%%); with tests: %d of %d (%.1f%%)\n", passing, pct(passing, total), passingTested, withTests, pct(passingTested, withTests))
	fmt.Printf("compile errors: %d %v\n", compileErr, compileKinds)
	fmt.Printf("validation errors: %d instances in %d schemas\n", valErr, valErrSchemas)
	fmt.Printf("invalidation errors: %d instances in %d schemas\n", invalErr, invalErrSchemas)
	fmt.Printf("mask/accept mismatches: %d\n", mismatch)
	fmt.Printf("masks: %d; µs avg %.1f / p50 %.1f / p99 %.1f / max %.0f\n", len(maskTimes), avg(maskTimes), q(maskTimes, .5), q(maskTimes, .99), q(maskTimes, 1))
	fmt.Printf("first mask µs: p50 %.0f / p99 %.0f\n", q(firstTimes, .5), q(firstTimes, .99))
	fmt.Printf("grammar bytes: p50 %.0f / p99 %.0f / max %.0f\n", q(grammarBytes, .5), q(grammarBytes, .99), q(grammarBytes, 1))
}

// errKind names the sentinel a compile error wraps, for the counts of
// compile errors by kind.
func errKind(err error) string {
	switch {
	case errors.Is(err, constrain.ErrUnsupported):
		return "unsupported"
	case errors.Is(err, constrain.ErrTooComplex):
		return "too complex"
	case errors.Is(err, constrain.ErrEmpty):
		return "empty"
	case errors.Is(err, constrain.ErrInvalidSchema):
		return "invalid"
	}
	return "other"
}

// pct is a as a percentage of b (of 1 when b is 0, so that an empty count
// prints as 0%).
func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// avg is the mean of x, 0 for none.
func avg(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(max(len(x), 1))
}

// q returns the p-quantile of x, the value of rank p*(len(x)-1) rounded
// down, sorting x in place; 0 for none.
func q(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	i := int(p * float64(len(x)-1))
	return x[i]
}
