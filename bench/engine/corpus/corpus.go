// Package corpus generates the deterministic, non-repeating text corpora of
// enginebench from the small seed texts in internal/o200k/testdata/corpus.
//
// Text written with spaces between words (prose, code, Cyrillic, Arabic,
// emoji) is drawn from a word-level Markov chain trained on its seed: its
// words are the seed's words, as in real text, where most pieces are words
// that are tokens, while their order is new. CJK text, which has no spaces,
// is drawn from a character-level chain, so that which characters follow
// which, and so how long the runs between punctuation are, follows the
// seed. (A character-level chain over spaced text makes up words, and
// nearly every piece of it would need byte-pair merging, which real text
// does not.) Either way no long stretch of the seed or of the output
// repeats: an encoder with a cache gains only what it would gain on real
// text. The character chain backs off from its full order to shorter
// contexts wherever a context has only one continuation in the seed, and
// the word chain jumps to a random word of the seed wherever a word has
// fewer than two, so neither copies the seed verbatim for long.
//
// Generation is seeded (math/rand/v2 PCG, one stream per corpus name), so a
// given seed directory and size always give the same bytes.
package corpus

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultSize is the size of a corpus in bytes: 5,000,000, cut at a rune
// boundary (so a corpus may be up to 3 bytes shorter).
const DefaultSize = 5_000_000

// Names lists the corpora in report order.
var Names = []string{"prose", "code", "multilingual", "cjk", "cjk-long", "cyrillic", "arabic", "emoji"}

// seedFiles maps a seed name to its file under the seed directory.
var seedFiles = map[string]string{
	"prose":    "prose.txt",
	"code":     "code.go.txt",
	"cjk":      "cjk.txt",
	"cyrillic": "cyrillic.txt",
	"arabic":   "arabic.txt",
	"emoji":    "emoji.txt",
	"marks":    "marks.txt",
}

// orders is the Markov order of each seed's chain: the longer the seed,
// the more context it supports before every context has one continuation.
var orders = map[string]int{
	"prose":    4,
	"code":     4,
	"cjk":      2,
	"cyrillic": 3,
	"arabic":   3,
	"emoji":    2,
	"marks":    3,
}

// Generator makes corpora from a seed directory.
type Generator struct {
	seeds map[string]string // seed name -> text
}

// NewGenerator reads the seed texts from dir (internal/o200k/testdata/corpus
// of this repository).
func NewGenerator(dir string) (*Generator, error) {
	g := &Generator{seeds: map[string]string{}}
	for name, file := range seedFiles {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, fmt.Errorf("corpus: seed %s: %w", name, err)
		}
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("corpus: seed %s is not valid UTF-8", name)
		}
		g.seeds[name] = string(data)
	}
	return g, nil
}

// FindSeeds looks for internal/o200k/testdata/corpus in dir and its parents,
// so that the tools work from anywhere inside the repository.
func FindSeeds(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "internal", "o200k", "testdata", "corpus")
		if st, err := os.Stat(filepath.Join(p, "prose.txt")); err == nil && !st.IsDir() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("corpus: no internal/o200k/testdata/corpus above %s", dir)
		}
	}
}

// Generate returns the corpus called name, size bytes long at most and
// within 3 bytes of size (it ends at a rune boundary).
func (g *Generator) Generate(name string, size int) ([]byte, error) {
	rng := rand.New(rand.NewPCG(seedOf(name), 0x9e3779b97f4a7c15))
	var out []byte
	switch name {
	case "prose", "code", "cyrillic", "arabic", "emoji":
		out = newWordChain(g.seeds[name]).generate(rng, size)
	case "cjk":
		m := newChain(g.seeds[name], orders[name])
		out = m.generate(rng, size, nil)
	case "multilingual":
		out = g.multilingual(rng, size)
	case "cjk-long":
		out = g.cjkLong(rng, size)
	default:
		return nil, fmt.Errorf("corpus: unknown corpus %q (have %s)", name, strings.Join(Names, ", "))
	}
	return cut(out, size), nil
}

// WriteAll generates every corpus in names (all of Names if empty) into dir
// as NAME.txt and returns the paths in order.
func (g *Generator) WriteAll(dir string, names []string, size int) ([]string, error) {
	if len(names) == 0 {
		names = Names
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, name := range names {
		data, err := g.Generate(name, size)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, name+".txt")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// cut trims b (valid UTF-8) to at most size bytes, at a rune boundary.
func cut(b []byte, size int) []byte {
	if len(b) <= size {
		return b
	}
	for size > 0 && !utf8.RuneStart(b[size]) {
		size--
	}
	return b[:size]
}

// multilingual alternates paragraphs drawn from the CJK, Cyrillic, Arabic,
// combining-marks and prose chains.
func (g *Generator) multilingual(rng *rand.Rand, size int) []byte {
	type paragrapher interface {
		paragraph(rng *rand.Rand, dst []byte, limit int) []byte
	}
	chains := []paragrapher{
		newWordChain(g.seeds["prose"]),
		newChain(g.seeds["cjk"], orders["cjk"]),
		newWordChain(g.seeds["cyrillic"]),
		newWordChain(g.seeds["arabic"]),
		newWordChain(g.seeds["marks"]),
	}
	out := make([]byte, 0, size+4096)
	for len(out) < size {
		c := chains[rng.IntN(len(chains))]
		out = c.paragraph(rng, out, 2000)
	}
	return out
}

// wordChain is a word-level Markov chain of order one: a word is a run of
// non-space characters with the space after it (a run longer than 32 bytes
// is cut into words of four characters), and the next word is drawn
// from those that follow the last one in the seed, or from all the seed's
// words where fewer than two distinct ones do, and one time in four
// anyway (the seeds are short: a small vocabulary would otherwise repeat
// stretches of words by chance).
type wordChain struct {
	words []string
	next  map[string][]string
}

func newWordChain(text string) *wordChain {
	c := &wordChain{next: map[string][]string{}}
	for len(text) > 0 {
		i := strings.IndexFunc(text, unicode.IsSpace)
		if i < 0 {
			i = len(text)
		}
		j := i + len(text[i:]) - len(strings.TrimLeftFunc(text[i:], unicode.IsSpace))
		// A long run without spaces (a row of emoji, a line of code) is
		// cut into words of four characters, so that it is reshuffled
		// rather than repeated whole.
		w := text[:j]
		for i > 32 {
			k := 0
			for range 4 {
				_, size := utf8.DecodeRuneInString(w[k:])
				k += size
			}
			c.words = append(c.words, w[:k])
			w, i = w[k:], i-k
		}
		if len(w) > 0 {
			c.words = append(c.words, w)
		}
		text = text[j:]
	}
	for i, w := range c.words {
		nw := c.words[(i+1)%len(c.words)]
		c.next[w] = append(c.next[w], nw)
	}
	return c
}

// step draws the word after w.
func (c *wordChain) step(rng *rand.Rand, w string) string {
	if n := c.next[w]; rng.IntN(4) > 0 && len(n) >= 2 && slices.ContainsFunc(n[1:], func(x string) bool { return x != n[0] }) {
		return n[rng.IntN(len(n))]
	}
	return c.words[rng.IntN(len(c.words))]
}

// generate returns words until there are size bytes.
func (c *wordChain) generate(rng *rand.Rand, size int) []byte {
	out := make([]byte, 0, size+256)
	w := c.words[rng.IntN(len(c.words))]
	for len(out) < size {
		out = append(out, w...)
		w = c.step(rng, w)
	}
	return out
}

// paragraph appends words up to one that ends a line, at most limit words
// (then a line break is added).
func (c *wordChain) paragraph(rng *rand.Rand, dst []byte, limit int) []byte {
	w := c.words[rng.IntN(len(c.words))]
	for range limit {
		dst = append(dst, w...)
		if strings.ContainsRune(w, '\n') {
			return dst
		}
		w = c.step(rng, w)
	}
	return append(dst, '\n')
}

// cjkLong is CJK text whose punctuation is rare: runs of 100 to 400 Han or
// kana characters (from a chain trained on the seed's letters alone) between
// punctuation marks drawn from the seed, and a line break every few runs.
// Each run is one pre-tokenizer piece, so byte-pair merging dominates.
func (g *Generator) cjkLong(rng *rand.Rand, size int) []byte {
	seed := g.seeds["cjk"]
	var letters, puncts []rune
	for _, r := range seed {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー':
			letters = append(letters, r)
		case unicode.IsPunct(r) && r >= 0x3000:
			puncts = append(puncts, r)
		}
	}
	if len(puncts) == 0 {
		puncts = []rune{'，', '。'}
	}
	m := newChain(string(letters), orders["cjk"])
	out := make([]byte, 0, size+4096)
	for len(out) < size {
		n := 100 + rng.IntN(301)
		out = m.run(rng, out, n)
		out = utf8.AppendRune(out, puncts[rng.IntN(len(puncts))])
		if rng.IntN(4) == 0 {
			out = append(out, '\n')
		}
	}
	return out
}

// chain is a character-level Markov chain with back-off: it draws the next
// rune from the longest context (up to its order) whose continuations in
// the seed include at least two distinct runes, down to order 0.
type chain struct {
	order int
	// next[k] maps a context of k runes (as a string) to the runes that
	// follow it in the seed, with repetition, in seed order.
	next []map[string]*succ
	seed []rune
}

type succ struct {
	runes    []rune
	distinct int
}

func newChain(text string, order int) *chain {
	rs := []rune(text)
	c := &chain{order: order, seed: rs, next: make([]map[string]*succ, order+1)}
	for k := range c.next {
		c.next[k] = map[string]*succ{}
	}
	// The seed is read as a cycle, so that every context has a continuation.
	n := len(rs)
	for i := range rs {
		for k := 0; k <= order; k++ {
			ctx := string(cyc(rs, i-k, k))
			s := c.next[k][ctx]
			if s == nil {
				s = &succ{}
				c.next[k][ctx] = s
			}
			r := rs[i%n]
			if !containsRune(s.runes, r) {
				s.distinct++
			}
			s.runes = append(s.runes, r)
		}
	}
	return c
}

// cyc returns the k runes of rs starting at i, wrapping around.
func cyc(rs []rune, i, k int) []rune {
	out := make([]rune, k)
	for j := range k {
		out[j] = rs[((i+j)%len(rs)+len(rs))%len(rs)]
	}
	return out
}

func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// state is the context of the last runes drawn.
type state struct{ hist []rune }

func (c *chain) start(rng *rand.Rand) state {
	i := rng.IntN(len(c.seed))
	return state{hist: cyc(c.seed, i, c.order)}
}

// step draws the next rune after st and appends it to st.
func (c *chain) step(rng *rand.Rand, st *state) rune {
	var buf [16]byte
	for k := min(c.order, len(st.hist)); k >= 0; k-- {
		ctx := st.hist[len(st.hist)-k:]
		key := buf[:0]
		for _, r := range ctx {
			key = utf8.AppendRune(key, r)
		}
		s := c.next[k][string(key)]
		if s == nil || (s.distinct < 2 && k > 0) {
			continue
		}
		r := s.runes[rng.IntN(len(s.runes))]
		st.hist = append(st.hist, r)
		if len(st.hist) > 4*c.order+4 {
			st.hist = append(st.hist[:0], st.hist[len(st.hist)-c.order:]...)
		}
		return r
	}
	panic("corpus: empty chain")
}

// generate appends runes from a fresh start until dst holds size bytes.
func (c *chain) generate(rng *rand.Rand, size int, dst []byte) []byte {
	if dst == nil {
		dst = make([]byte, 0, size+utf8.UTFMax)
	}
	st := c.start(rng)
	for len(dst) < size {
		dst = utf8.AppendRune(dst, c.step(rng, &st))
	}
	return dst
}

// paragraph appends one paragraph: runes up to and including a line break,
// at most limit runes (then a line break is added).
func (c *chain) paragraph(rng *rand.Rand, dst []byte, limit int) []byte {
	st := c.start(rng)
	for range limit {
		r := c.step(rng, &st)
		dst = utf8.AppendRune(dst, r)
		if r == '\n' {
			return dst
		}
	}
	return append(dst, '\n')
}

// run appends exactly n runes.
func (c *chain) run(rng *rand.Rand, dst []byte, n int) []byte {
	st := c.start(rng)
	for range n {
		dst = utf8.AppendRune(dst, c.step(rng, &st))
	}
	return dst
}
