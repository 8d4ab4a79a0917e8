package o200k

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/tiktokenoracle"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// benchText returns the named corpus (or a mix) repeated to at least n
// bytes.
func benchText(b *testing.B, name string, n int) string {
	var text string
	for _, c := range corpora(b) {
		switch {
		case name == "multilingual" && strings.Contains("cjk.txt cyrillic.txt arabic.txt marks.txt", c.name):
			text += c.text
		case strings.TrimSuffix(strings.TrimSuffix(c.name, ".txt"), ".go") == name:
			text = c.text
		}
	}
	if text == "" {
		b.Fatalf("no corpus %s", name)
	}
	return strings.Repeat(text, n/len(text)+1)
}

// BenchmarkEncode encodes each corpus kind (repeated to 64 KiB) with this
// engine and with tiktoken-go, side by side.
func BenchmarkEncode(b *testing.B) {
	e := mustLoad(b)
	tk, _ := oracle(b)
	for _, name := range []string{"prose", "code", "multilingual", "cjk", "cyrillic", "arabic", "marks", "emoji", "digits", "whitespace", "identifiers", "specials"} {
		text := benchText(b, name, 64<<10)
		b.Run("Corpus="+name+"/Engine=o200k", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var dst []uint32
			for b.Loop() {
				dst = e.AppendEncode(dst[:0], text)
			}
		})
		b.Run("Corpus="+name+"/Engine=tiktoken", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tk.EncodeOrdinary(text)
			}
		})
	}
}

// BenchmarkRepeated encodes 1 MiB of one repeated character, a single
// piece (or, for digits, 3-byte pieces), next to 1 MiB of prose for scale.
// tiktoken-go's merge is quadratic in the piece length, so its input is
// capped at 16 KiB (already a third of a second).
func BenchmarkRepeated(b *testing.B) {
	e := mustLoad(b)
	tk, _ := oracle(b)
	prose := benchText(b, "prose", 1<<20)[:1<<20]
	b.Run("Char=prose/Engine=o200k/Size=1MiB", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(prose)))
		var dst []uint32
		for b.Loop() {
			dst = e.AppendEncode(dst[:0], prose)
		}
	})
	for _, c := range []struct{ name, unit string }{
		{"a", "a"}, {"dash", "-"}, {"space", " "}, {"emoji", "😀"}, {"digit", "1"}, {"newline", "\n"},
	} {
		text := strings.Repeat(c.unit, (1<<20)/len(c.unit))
		b.Run("Char="+c.name+"/Engine=o200k/Size=1MiB", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var dst []uint32
			for b.Loop() {
				dst = e.AppendEncode(dst[:0], text)
			}
		})
		short := text[:16<<10]
		b.Run("Char="+c.name+"/Engine=tiktoken/Size=16KiB", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(short)))
			for b.Loop() {
				tk.EncodeOrdinary(short)
			}
		})
	}
}

// BenchmarkLoad compares setting the engine up from the embedded table
// (what the first Load does) with tiktoken-go's first
// GetEncoding("o200k_base") with the offline loader (parse the embedded
// rank file, then NewCoreBPE), and reports the heap each keeps.
func BenchmarkLoad(b *testing.B) {
	b.Run("Engine=o200k", func(b *testing.B) {
		var keep *Engine
		heap := heapAfter(b, func() {
			for b.Loop() {
				e, err := newEngine(tableData, tableSHA256, tableSize, false)
				if err != nil {
					b.Fatal(err)
				}
				keep = e
			}
		})
		runtime.KeepAlive(keep)
		b.ReportMetric(float64(heap), "heap-B")
	})
	b.Run("Engine=tiktoken/first", func(b *testing.B) {
		var keep *tiktoken.Tiktoken
		heap := heapAfter(b, func() {
			for b.Loop() {
				// What GetEncoding does the first time: load the
				// ranks, then build the CoreBPE.
				ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
				if err != nil {
					b.Fatal(err)
				}
				bpe, err := tiktoken.NewCoreBPE(ranks, map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}, tiktokenoracle.Pattern)
				if err != nil {
					b.Fatal(err)
				}
				keep = tiktoken.NewTiktoken(bpe, nil, nil)
			}
		})
		runtime.KeepAlive(keep)
		b.ReportMetric(float64(heap), "heap-B")
	})
	b.Run("Engine=tiktoken/GetEncoding", func(b *testing.B) {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		for b.Loop() {
			if _, err := tiktoken.GetEncoding("o200k_base"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// heapAfter runs f and returns how much more heap is live afterwards.
func heapAfter(b *testing.B, f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// BenchmarkBPE measures the merges on pieces of a given length cut from
// prose and from CJK text with the spaces taken out: bpeSmall against
// bpeLarge on ASCII, which is how smallPiece was chosen (bpeSmall wins by
// 1.6-3x up to 128 bytes), and bpeChars against bpeLarge on CJK.
func BenchmarkBPE(b *testing.B) {
	e := mustLoad(b)
	for _, text := range []string{"prose", "cjk"} {
		src := strings.ReplaceAll(benchText(b, text, 16<<10), " ", "")
		lengths := []int{8, 16, 32, 64, 96, 128}
		small := e.bpeSmall
		if text == "cjk" {
			lengths = append(lengths, 256, 1024)
			small = func(dst []uint32, p string, w *work) []uint32 {
				dst, _ = e.bpeChars(dst, p, w)
				return dst
			}
		}
		for _, n := range lengths {
			var pieces []string
			for i := 0; i+n+3 <= len(src) && len(pieces) < 64; i += 97 {
				for !utf8.RuneStart(src[i]) {
					i++
				}
				end := i + n
				for !utf8.RuneStart(src[end]) {
					end++
				}
				pieces = append(pieces, src[i:end])
			}
			for _, alg := range []struct {
				name string
				f    func([]uint32, string, *work) []uint32
			}{{"small", small}, {"large", e.bpeLarge}} {
				b.Run("Text="+text+"/Len="+itoa(n)+"/Alg="+alg.name, func(b *testing.B) {
					size := 0
					for _, p := range pieces {
						size += len(p)
					}
					b.SetBytes(int64(size))
					var dst []uint32
					w := e.getWork()
					defer e.putWork(w)
					for b.Loop() {
						for _, p := range pieces {
							dst = alg.f(dst[:0], p, w)
						}
					}
				})
			}
		}
	}
}

// BenchmarkLookup compares the rank index with a Go map on the lookups
// encoding prose makes: whole pieces, and the substrings BPE asks for.
func BenchmarkLookup(b *testing.B) {
	e := mustLoad(b)
	_, ranks := oracle(b)
	text := benchText(b, "prose", 16<<10)
	var keys []string
	for i := 0; i < len(text); {
		end := e.pieceEnd(text, i)
		p := text[i:end]
		keys = append(keys, p)
		for k := 3; k <= len(p); k++ {
			keys = append(keys, p[:k])
		}
		i = end
	}
	b.Run("Index=table", func(b *testing.B) {
		b.SetBytes(int64(len(keys)))
		n := 0
		for b.Loop() {
			for _, k := range keys {
				if e.lookup(k) != none {
					n++
				}
			}
		}
	})
	m := make(map[string]uint32, len(ranks))
	for i, r := range ranks {
		m[string(r)] = uint32(i)
	}
	b.Run("Index=map", func(b *testing.B) {
		b.SetBytes(int64(len(keys)))
		n := 0
		for b.Loop() {
			for _, k := range keys {
				if _, ok := m[k]; ok {
					n++
				}
			}
		}
	})
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
