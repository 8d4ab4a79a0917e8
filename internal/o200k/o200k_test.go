package o200k

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/o200k/internal/table"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatchesTiktoken compares every corpus, and a few thousand lines cut
// from them (in four variants each, unless sampled), with tiktoken-go.
func TestMatchesTiktoken(t *testing.T) {
	e := mustLoad(t)
	for _, c := range corpora(t) {
		require.False(t, tiktokenDiffers(c.text), "%s holds code points documented to differ; move them to reference_only.txt", c.name)
		want := oracleEncode(t, c.text)
		got := e.AppendEncode(nil, c.text)
		if !slices.Equal(got, want) {
			assert.Equal(t, want, got, "%s: %s", c.name, firstDiff(e, c.text, got, want))
		}
		// After what dst already holds, AppendEncode appends the tokens.
		prefix := []uint32{none}
		assert.Equal(t, len(want), len(e.AppendEncode(prefix, c.text))-len(prefix), "%s: tokens AppendEncode appended after a prefix", c.name)
		variants := func(line string) []string {
			if sample.Sampled() {
				return []string{line}
			}
			return []string{line, strings.TrimSpace(line), " " + line, line + line}
		}
		for _, line := range strings.SplitAfter(c.text, "\n") {
			for _, s := range variants(line) {
				if got, want := e.AppendEncode(nil, s), oracleEncode(t, s); !slices.Equal(got, want) {
					assert.Equal(t, want, got, "%s: %q: %s", c.name, s, firstDiff(e, s, got, want))
				}
			}
		}
	}
}

// TestMatchesTiktokenCases covers the pattern's corners one by one.
func TestMatchesTiktokenCases(t *testing.T) {
	e := mustLoad(t)
	for _, s := range tricky {
		if got, want := e.AppendEncode(nil, s), oracleEncode(t, s); !slices.Equal(got, want) {
			assert.Equal(t, want, got, "%q: %s", s, firstDiff(e, s, got, want))
		}
	}
}

// tricky holds short cases for the pattern's alternatives; also the fuzz
// seeds.
var tricky = []string{
	"", "a", "A", " ", "\n", "\r\n", "1", "'", "'s", " 's", "x's", "X'S",
	"HELLOworld", "HELLO world", "ABCdef", "abcDEF", "AbCdEf", "I'LL", "I'll", "don't", "DON'T",
	"they're", "THEY'RE", "we've", "I'm", "you'll", "he'd", "it'sa", "x'", "x'l", "x'r", "x 'll",
	"中A", "中A ", "A中", "A中b", "Ǆx", "ǅx", "ǅ", "ǅǅǅ", "ʰA", "Aʰ", "AʰB", "ABʰCD ", "A\u0301B\u0301c",
	"\u0301", " \u0301", "\u0301a", "\u0301\u0301", "a\u0301", "1\u0301", "\u0301 ", ".\u0301a", "\t\u0301",
	"\u0301A", "\u0301AB", " \u0301AB", "\u0301'S", "A\u0301'S",
	"12345", "1234567", "１２３４", "a1", "1a", "١٢٣٤", "½¾", "Ⅻ",
	"  ", "   ", "   a", "  \n", " \n ", "\n\n\n", "\r\r", "\r\n\r\n", "  \r\n  x", "\t\t", "\ta", "\t.",
	" .", " ..", "..", " .\n", ".\n\n", "./", " //\n/", "...\r\n\r\nx", " !", "! ", "!a", " !a",
	"\u00a0", "\u00a0a", "a\u00a0", "\u00a0\u00a0a", "\u3000\u3000x", "\u2028", "\u0085", "\u0085a", "\v", "\f", "\v\n",
	" \u00a0 ", "x  ", "x  \n", "x \u00a0\n", "a\u200bb", "a\u200db", "\ufeffa",
	"😀", " 😀", "😀😀", "a😀", "👨‍👩‍👧", "👍🏽", "🇺🇸", "1️⃣",
	"<|start|>", "<|endoftext|>", " <|end|>\n", "<|",
	"\xff", "a\xffb", "\xc3", "\xed\xa0\x80", "\xf0\x9f\x98", " \xff", "\xff\n", "\xef\xbf\xbd",
	"Straße", "ĲSSEL", "ǅungla", "ΑΘΗΝΑ'S", "ПРИВЕТмир", "привет'S",
}

// TestMatchesReference compares with token ids that the reference itself
// produced (testdata/reference_tokens.txt), which
// include the cases where tiktoken-go differs.
func TestMatchesReference(t *testing.T) {
	e := mustLoad(t)
	f, err := os.Open("testdata/reference_tokens.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	seen := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		name := fields[0]
		var want []uint32
		for _, f := range fields[1:] {
			id, err := strconv.ParseUint(f, 10, 32)
			require.NoError(t, err)
			want = append(want, uint32(id))
		}
		path := "testdata/corpus/" + name
		if name == "reference_only.txt" {
			path = "testdata/" + name
		}
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		if got := e.AppendEncode(nil, string(text)); !slices.Equal(got, want) {
			assert.Equal(t, want, got, "%s: %s", name, firstDiff(e, string(text), got, want))
		}
		seen++
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, seen, 10, "reference files")
}

// TestReferenceOnlyDiffers checks that the cases kept out of the
// differential tests really differ from tiktoken-go, line by line, so that
// the documented exceptions stay honest.
func TestReferenceOnlyDiffers(t *testing.T) {
	e := mustLoad(t)
	text, err := os.ReadFile("testdata/reference_only.txt")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		assert.True(t, tiktokenDiffers(line), "%q: not among the documented differences", line)
		assert.False(t, slices.Equal(e.AppendEncode(nil, line), oracleEncode(t, line)), "%q: same as tiktoken-go", line)
	}
}

// TestUnicodeDelta checks unicode16Delta against the tables: these, and
// only these, code points have other classes than Go's unicode package
// gives tiktoken-go.
func TestUnicodeDelta(t *testing.T) {
	e := mustLoad(t)
	step := rune(1)
	if sample.Sampled() {
		step = 61
	}
	// The plain comparison first: testify's bookkeeping on each of a
	// million code points would slow the test many times over (so in
	// the other loops over every code point or every rank below).
	for r := rune(0); r <= unicode.MaxRune; r += step {
		if got, want := goFlags()[r], goFlagsSlow(r); got != want {
			require.Equal(t, want, got, "goFlags[%U], and what the unicode package says", r)
		}
	}
	got := unicodeDelta(e)
	if unicode.Version != "15.0.0" {
		t.Skipf("Go has Unicode %s; unicode16Delta is for 15.0.0 (computed delta: %d ranges)", unicode.Version, len(got))
	}
	if !slices.Equal(got, unicode16Delta) {
		for _, r := range got {
			t.Logf("{%#04X, %#04X, %d},", r.lo, r.hi, r.flags)
		}
		require.Equal(t, unicode16Delta, got, "delta has %d ranges, unicode16Delta %d", len(got), len(unicode16Delta))
	}
	n := 0
	for _, r := range got {
		n += int(r.hi - r.lo + 1)
	}
	assert.Equal(t, 5055, n, "code points in the delta (the doc says 5,055)")
}

// TestCaseFold checks that no non-ASCII rune lowercases to a letter of the
// contractions in Go (so regexp2 matches only ASCII there), while the
// reference's simple case folding adds exactly U+017F for s.
func TestCaseFold(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); strings.ContainsRune("strvemld", l) {
			assert.NotContains(t, "strvemld", string(l), "unicode.ToLower(%U)", r)
		}
	}
	for _, c := range "strvemld" {
		var orbit []rune
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				orbit = append(orbit, f)
			}
		}
		want := []rune(nil)
		if c == 's' {
			want = []rune{0x17F}
		}
		assert.Equal(t, want, orbit, "non-ASCII folds of %q", c)
	}
	e := mustLoad(t)
	for s, want := range map[string][]string{
		"it'ſ":    {"it'ſ"},
		"IT'ſ":    {"IT'ſ"},
		"x 'ſ":    {"x", " '", "ſ"},
		"it'ſſ":   {"it'ſ", "ſ"},
		"it's":    {"it's"},
		"it'S":    {"it'S"},
		"it'K":    {"it", "'K"},
		"it'\xc5": {"it", "'\ufffd"},
	} {
		assert.Equal(t, want, pieces(e, s), "pieces(%q)", s)
	}
}

// pieces returns the pre-tokenizer's split of s.
func pieces(e *Engine, s string) []string {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var out []string
	for i := 0; i < len(s); {
		end := e.pieceEnd(s, i)
		out = append(out, s[i:end])
		i = end
	}
	return out
}

func TestPieces(t *testing.T) {
	e := mustLoad(t)
	for s, want := range map[string][]string{
		"HELLOworld":       {"HELLOworld"},
		"ABCdef GHI":       {"ABCdef", " GHI"},
		"I'LL don't":       {"I'LL", " don't"},
		"hello   world":    {"hello", "  ", " world"},
		"a  \n\n b":        {"a", "  \n\n", " b"},
		"x\u00a0y":         {"x", "\u00a0y"},
		"12345":            {"123", "45"},
		"...\n\nx":         {"...\n\n", "x"},
		" ./\n":            {" ./\n"},
		"中A ":              {"中", "A", " "},
		"\u0301":           {"\u0301"},
		" \u0301":          {" \u0301"},
		"end  ":            {"end", "  "},
		"<|start|>":        {"<|", "start", "|>"},
		"\xffabc":          {"\ufffdabc"},
		"a\r\nb":           {"a", "\r\n", "b"},
		"tab\t\tx":         {"tab", "\t", "\tx"},
		"\u3000\u3000word": {"\u3000", "\u3000word"},
	} {
		assert.Equal(t, want, pieces(e, s), "pieces(%q)", s)
	}
}

// TestRoundTrip checks that the tokens' bytes concatenate to the text.
func TestRoundTrip(t *testing.T) {
	e := mustLoad(t)
	check := func(name, text string) {
		var buf []byte
		for _, id := range e.AppendEncode(nil, text) {
			buf = append(buf, e.TokenBytes(id)...)
		}
		assert.True(t, string(buf) == text, "%s: round trip differs", name)
	}
	for _, c := range corpora(t) {
		if utf8.ValidString(c.text) {
			check(c.name, c.text)
		}
	}
	for _, s := range tricky {
		if utf8.ValidString(s) {
			check(strconv.Quote(s), s)
		}
	}
	check("invalid", replaceInvalid("a\xffb\xc3"))
	assert.Equal(t, "hello world", string(e.TokenBytes(24912))+string(e.TokenBytes(2375)), "TokenBytes(24912, 2375)")
	assert.Nil(t, e.TokenBytes(uint32(e.NumRanks())), "TokenBytes beyond the ranks")
	assert.Nil(t, e.TokenBytes(1<<31), "TokenBytes beyond the ranks")
	assert.Equal(t, vocab.O200kBaseRanks, e.NumRanks())
}

// TestAllTokens checks the decode table and the rank index against the
// vocabulary: every rank's bytes, and every token encodes to itself when it
// is a whole piece.
func TestAllTokens(t *testing.T) {
	e := mustLoad(t)
	_, ranks := oracle(t)
	for id, tok := range ranks {
		// The plain comparisons first, as in TestUnicodeDelta.
		if got := e.TokenBytes(uint32(id)); !bytes.Equal(got, tok) {
			require.Equal(t, tok, got, "TokenBytes(%d)", id)
		}
		if got := e.lookup(string(tok)); got != uint32(id) {
			require.Equal(t, uint32(id), got, "lookup(%q)", tok)
		}
		if len(tok) == 2 && e.pairs[uint16(tok[0])<<8|uint16(tok[1])] != uint32(id) {
			require.Equal(t, uint32(id), e.pairs[uint16(tok[0])<<8|uint16(tok[1])], "pairs[%q]", tok)
		}
	}
	for _, s := range []string{"", "\x00\x00\x00", strings.Repeat("a", 300), strings.Repeat("x", 128)} {
		assert.Equal(t, none, e.lookup(s), "lookup(%.20q)", s)
	}
}

// TestLoadCopy runs the engine on sections copied out of the table (the
// path for big-endian or misaligned data) and checks a bad hash fails.
func TestLoadCopy(t *testing.T) {
	e, err := newEngine(tableData, tableSHA256, tableSize, true)
	require.NoError(t, err)
	require.True(t, e.copied, "not copied")
	ref := mustLoad(t)
	if ref.copied {
		t.Log("note: the embedded table is used through copies on this platform")
	}
	for _, c := range corpora(t) {
		if got, want := e.AppendEncode(nil, c.text), ref.AppendEncode(nil, c.text); !slices.Equal(got, want) {
			assert.Equal(t, want, got, "%s: copied engine differs", c.name)
		}
	}
	_, err = newEngine(tableData[:len(tableData)-1]+"x", tableSHA256, tableSize, false)
	assert.Error(t, err, "corrupt table accepted")
	e2, _ := Load()
	assert.Same(t, ref, e2, "Load returned another engine")
}

// TestTableUpToDate regenerates the table in memory, as go generate would,
// and compares it with the committed o200k.bin and table_sum.go.
func TestTableUpToDate(t *testing.T) {
	_, ranks := oracle(t)
	f, err := os.Open("gen/classes.txt")
	require.NoError(t, err)
	defer f.Close()
	flags, err := table.ParseClasses(f)
	require.NoError(t, err)
	out, err := table.Build(ranks, flags)
	require.NoError(t, err)
	sum := sha256.Sum256(out)
	require.Equal(t, tableSHA256, hex.EncodeToString(sum[:]), "regenerated table's sha256 and table_sum.go's: run go generate")
	require.Equal(t, tableSize, len(out), "regenerated table's size and table_sum.go's: run go generate")
	committed, err := os.ReadFile("o200k.bin")
	require.NoError(t, err)
	require.True(t, bytes.Equal(committed, out), "o200k.bin differs from the regenerated table: run go generate")
	require.True(t, string(committed) == tableData, "o200k.bin differs from the embedded table: run go generate")
}

// TestClassTables checks the stage tables against gen/classes.txt for
// every code point, and the ASCII table against them.
func TestClassTables(t *testing.T) {
	e := mustLoad(t)
	f, err := os.Open("gen/classes.txt")
	require.NoError(t, err)
	defer f.Close()
	flags, err := table.ParseClasses(f)
	require.NoError(t, err)
	// The plain comparisons first, as in TestUnicodeDelta.
	for r := rune(0); r < table.MaxRune; r++ {
		if got := e.runeFlags(r); got != flags[r] {
			require.Equal(t, flags[r], got, "runeFlags(%U)", r)
		}
		if r < utf8.RuneSelf && asciiFlags[r] != flags[r] {
			require.Equal(t, flags[r], asciiFlags[r], "asciiFlags[%U]", r)
		}
		// class2's two-byte path, through peek and acceptRun.
		if r >= utf8.RuneSelf && r < 0x800 {
			s := string(r) + "\u0800"
			if c, n := e.peek(s, 0); c != flags[r] || n != 2 {
				require.Equal(t, [2]int{int(flags[r]), 2}, [2]int{int(c), n}, "peek(%U): class, length", r)
			}
			if end, want := e.acceptRun(s, 0, flags[r]), 2+boolInt(e.runeFlags(0x800)&flags[r] != 0)*3; end != want {
				require.Equal(t, want, end, "acceptRun(%q, %#x)", s, flags[r])
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestConcurrent encodes from several goroutines at once (run with -race).
func TestConcurrent(t *testing.T) {
	e := mustLoad(t)
	cs := corpora(t)
	long := strings.Repeat("ab", 3000)
	want := e.AppendEncode(nil, long)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for _, c := range cs {
				e.AppendEncode(nil, c.text)
				if got := e.AppendEncode(nil, long); !slices.Equal(got, want) {
					assert.Equal(t, want, got, "concurrent long piece differs")
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// TestLongPieces compares long runs with tiktoken-go (kept short enough for
// its quadratic merge) and bpeLarge with the simple algorithm on long runs.
func TestLongPieces(t *testing.T) {
	e := mustLoad(t)
	lengths, pieces, maxLen := []int{smallPiece - 1, smallPiece, smallPiece + 1, 100, 700}, 200, 3000
	if sample.Sampled() {
		lengths, pieces, maxLen = []int{smallPiece - 1, smallPiece + 1, 100}, 40, 1000
	}
	for _, unit := range []string{"a", "-", " ", "😀", "1", "\n", "ab", "abc", "Ab", "é", "\u0301", "中", "ka", " a", "\r\n", "_-", "0x"} {
		for _, n := range lengths {
			s := strings.Repeat(unit, n/len(unit)+1)
			if got, want := e.AppendEncode(nil, s), oracleEncode(t, s); !slices.Equal(got, want) {
				assert.Equal(t, want, got, "%q x %d: %s", unit, n, firstDiff(e, s, got, want))
			}
		}
	}
	// bpeLarge merges a byte that is not valid UTF-8 as U+FFFD; bpe is
	// given only valid pieces, bpeSmall only ASCII ones.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2*pieces; i++ {
		p := randomPiece(rng, 1+rng.IntN(maxLen))
		if i%2 == 1 {
			p = randomChars(rng, 1+rng.IntN(maxLen/3))
		}
		want := bpeReference(e, replaceInvalid(p))
		if got := e.bpeLarge(nil, p, e.getWork()); !slices.Equal(got, want) {
			require.Equal(t, want, got, "bpeLarge(%q)", p)
		}
		if len(p) > 1 {
			got, ok := e.bpe(nil, p, e.getWork())
			require.Equal(t, utf8.ValidString(p), ok, "bpe(%q) = %v, %v: ok, and whether the piece is valid", p, got, ok)
			if !ok {
				require.Empty(t, got, "bpe(%q), not ok", p)
			} else if !slices.Equal(got, want) {
				require.Equal(t, want, got, "bpe(%q)", p)
			}
		}
		if len(p) > 1 && len(p) <= smallPiece && ascii(p) {
			if got := e.bpeSmall(nil, p, e.getWork()); !slices.Equal(got, want) {
				require.Equal(t, want, got, "bpeSmall(%q)", p)
			}
		}
	}
}

// randomChars returns n characters drawn from CJK, kana, Cyrillic, Arabic,
// accented Latin and emoji text, where words merge across characters.
func randomChars(rng *rand.Rand, n int) string {
	alphabets := [][]rune{
		[]rune("人工智能是计算机科学的一个分支它企图了解的实质并生产出一种新"),
		[]rune("日本語の文章にはひらがなカタカナ漢字が混在しています"),
		[]rune("北京是中华人民共和国的首都也是全国政治文化中心"),
		[]rune("ПриветмирэтотекстнарусскомязыкеЯя"),
		[]rune("مرحبابالعالمهذانصباللغةالعربية"),
		[]rune("àéîõüçñÀÉ\u0301\u0308a"),
		[]rune("😀👍🏽❤️\u200d🔥🇺🇸中a"),
		[]rune("\ufffd中\ufffdé"),
	}
	a := alphabets[rng.IntN(len(alphabets))]
	b := make([]rune, n)
	for i := range b {
		b[i] = a[rng.IntN(len(a))]
	}
	return string(b)
}

// randomPiece returns n bytes from a small alphabet, so that many merges
// and ties happen.
func randomPiece(rng *rand.Rand, n int) string {
	alphabets := []string{"ab", "abc ", "aaaaab", "- _", "the quick brown fox", "\x00\xff", "0123456789", "é中"}
	a := alphabets[rng.IntN(len(alphabets))]
	b := make([]byte, n)
	for i := range b {
		b[i] = a[rng.IntN(len(a))]
	}
	return string(b)
}

// bpeReference is tiktoken's byte_pair_merge, as written, on the heap: the
// specification of bpeSmall and bpeLarge.
func bpeReference(e *Engine, p string) []uint32 {
	if len(p) == 1 {
		return []uint32{e.bytes[p[0]]}
	}
	type part struct {
		start int
		rank  uint32
	}
	get := func(s string) uint32 {
		return e.lookup(s)
	}
	var parts []part
	for i := 0; i < len(p)-1; i++ {
		parts = append(parts, part{i, get(p[i : i+2])})
	}
	parts = append(parts, part{len(p) - 1, none}, part{len(p), none})
	rankAt := func(i int) uint32 {
		if i+3 < len(parts) {
			return get(p[parts[i].start:parts[i+3].start])
		}
		return none
	}
	for {
		best, i := none, -1
		for k, pt := range parts[:len(parts)-1] {
			if pt.rank < best {
				best, i = pt.rank, k
			}
		}
		if i < 0 {
			break
		}
		if i > 0 {
			parts[i-1].rank = rankAt(i - 1)
		}
		parts[i].rank = rankAt(i)
		parts = slices.Delete(parts, i+1, i+2)
	}
	var out []uint32
	for k := 0; k+1 < len(parts); k++ {
		out = append(out, get(p[parts[k].start:parts[k+1].start]))
	}
	return out
}

func FuzzEncodeMatchesTiktoken(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	for _, c := range corpora(f) {
		for _, line := range strings.SplitAfter(c.text, "\n") {
			f.Add(line)
		}
	}
	e := mustLoad(f)
	f.Fuzz(func(t *testing.T, s string) {
		// tiktoken-go's merge is quadratic: keep pieces short enough
		// for it.
		if v := replaceInvalid(s); len(v) > 600 || tiktokenDiffers(v) {
			t.Skip()
		}
		got, want := e.AppendEncode(nil, s), oracleEncode(t, s)
		if !slices.Equal(got, want) {
			require.Equal(t, want, got, "%q: %s", s, firstDiff(e, s, got, want))
		}
		prefix := []uint32{none}
		require.Equal(t, len(want), len(e.AppendEncode(prefix, s))-len(prefix), "%q: tokens AppendEncode appended after a prefix", s)
	})
}

// FuzzBPELarge checks bpeLarge, bpe (bpeChars or bpeSmall) and bpeSmall
// against tiktoken's algorithm; bpeLarge merges a byte that is not valid
// UTF-8 as U+FFFD, bpe reports such a piece, and bpeSmall is given ASCII.
// The first byte picks an alphabet the rest is mapped into, so that inputs
// have the long runs and ties that matter.
func FuzzBPELarge(f *testing.F) {
	f.Add([]byte("\x00aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("\x01the quick brown fox jumps over the lazy dog"))
	f.Add([]byte("\x02----------------------------------------------------------------"))
	f.Add([]byte("\x03\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte("\xffanything, taken as it is: 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀"))
	e := mustLoad(f)
	alphabets := []string{"a", "ab", "abc ", "- _=", "\n\r \t", "0123456789abcdef", "é中😀"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 || len(data) > 5000 {
			t.Skip()
		}
		p := data[1:]
		if k := int(data[0]); k < len(alphabets) {
			a := alphabets[k]
			q := make([]byte, len(p))
			for i, c := range p {
				q[i] = a[int(c)%len(a)]
			}
			p = q
		}
		want := bpeReference(e, replaceInvalid(string(p)))
		w := e.getWork()
		defer e.putWork(w)
		if got := e.bpeLarge(nil, string(p), w); !slices.Equal(got, want) {
			require.Equal(t, want, got, "bpeLarge(%q)", p)
		}
		got, ok := e.bpe(nil, string(p), w)
		require.Equal(t, utf8.Valid(p), ok, "bpe(%q) = %v, %v: ok, and whether the piece is valid", p, got, ok)
		if !ok {
			require.Empty(t, got, "bpe(%q), not ok", p)
			return
		}
		if !slices.Equal(got, want) {
			require.Equal(t, want, got, "bpe(%q)", p)
		}
		if len(p) <= smallPiece && ascii(string(p)) {
			if got := e.bpeSmall(nil, string(p), w); !slices.Equal(got, want) {
				require.Equal(t, want, got, "bpeSmall(%q)", p)
			}
		}
	})
}

// TestDocListsDelta checks that the package documentation lists exactly
// unicode16Delta.
func TestDocListsDelta(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	names := map[string]uint8{"upper": upper, "lower": lower, "letter": letter, "mark": mark, "number": number}
	var got []runeRange
	for _, line := range strings.Split(string(doc), "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "//"))
		if len(f) < 2 || !strings.HasPrefix(f[0], "U+") {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "..")
		if hi == "" {
			hi = lo
		}
		a, err1 := strconv.ParseUint(strings.TrimPrefix(lo, "U+"), 16, 32)
		b, err2 := strconv.ParseUint(strings.TrimPrefix(hi, "U+"), 16, 32)
		flags, ok := names[f[1]]
		require.NoError(t, err1, "doc.go: bad line %q", line)
		require.NoError(t, err2, "doc.go: bad line %q", line)
		require.True(t, ok, "doc.go: bad line %q: no class %q", line, f[1])
		got = append(got, runeRange{rune(a), rune(b), flags})
	}
	if !slices.Equal(got, unicode16Delta) {
		assert.Equal(t, unicode16Delta, got, "doc.go lists %d ranges, not those of unicode16Delta (%d)", len(got), len(unicode16Delta))
	}
}

// TestTokenValidity checks what appendPiece relies on to tell whether a
// piece that is a token is valid UTF-8 without reading all of it: a token
// is valid iff its first and its last character are.
func TestTokenValidity(t *testing.T) {
	e := mustLoad(t)
	invalid := 0
	for r := range uint32(e.NumRanks()) {
		tok := string(e.TokenBytes(r))
		valid := utf8.ValidString(tok)
		if got := endsValid(tok); got != valid { // plain first, as in TestUnicodeDelta
			assert.Equal(t, valid, got, "token %d %q: endsValid, and whether it is valid", r, tok)
		}
		if !valid {
			invalid++
		}
	}
	// The vocabulary does have invalid tokens (characters cut short at
	// either end), so the check is not vacuous.
	assert.Equal(t, 1562, invalid, "tokens that are not valid UTF-8")
}

// TestAppendTokenBytes appends every rank after a prefix, into room of
// every size around the 16-byte word AppendTokenBytes copies, and checks
// the bytes, that nothing before them changed, and that ids past the ranks
// are refused.
func TestAppendTokenBytes(t *testing.T) {
	e := mustLoad(t)
	for id := range uint32(e.NumRanks()) {
		want := e.TokenBytes(id)
		for _, room := range []int{0, 1, 15, 16, 17, 200} {
			dst := make([]byte, 3, 3+room)
			copy(dst, "abc")
			// The plain comparisons first, as in TestUnicodeDelta.
			if got, ok := e.AppendTokenBytes(dst, id); !ok || string(got[:3]) != "abc" || !bytes.Equal(got[3:], want) {
				require.True(t, ok, "AppendTokenBytes(%d) with room %d = %q, false", id, room, got)
				require.Equal(t, "abc", string(got[:3]), "AppendTokenBytes(%d) with room %d: the prefix", id, room)
				require.Equal(t, want, got[3:], "AppendTokenBytes(%d) with room %d", id, room)
			}
		}
	}
	for _, id := range []uint32{uint32(e.NumRanks()), 1 << 31} {
		got, ok := e.AppendTokenBytes([]byte("x"), id)
		assert.False(t, ok, "AppendTokenBytes(%d)", id)
		assert.Equal(t, "x", string(got), "AppendTokenBytes(%d)", id)
	}
}

// TestWordFastPaths compares, with tiktoken-go, texts made to reach every
// turn of asciiWord, its hand-overs to the general path, and the general
// path's inline reading of classes (class2) and its calls for the rest:
// ASCII and two-byte letters of each class (Lu, Ll, Lm and Lo of both
// classes, marks that are letters and [^\r\n\p{L}\p{N}] at once), runs that
// end at characters of three and four bytes (letters, marks and not),
// contractions, prefixes of every kind, digits, spaces and newlines, and
// invalid bytes: 20,000 random texts, the first 2,000 when sampled.
func TestWordFastPaths(t *testing.T) {
	e := mustLoad(t)
	alphabet := []string{
		"a", "z", "A", "Z", "s", "t", "'", "’", " ", "  ", "\t", "\n", "\r\n", ".", ",", "-", "(", "0", "7",
		"é", "É", "ß", "ж", "Ж", "Ω", "ω", "ا", "ب", "\u064e", "\u0301", "ʰ", "ǅ", "\u00a0", "«", "١",
		"中", "ᴀ", "\u20dd", "—", "😀", "\U0001d400", "\xff", "\xd0",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 20000
	if sample.Sampled() {
		n = 2000
	}
	for range n {
		var b strings.Builder
		for n := 1 + rng.IntN(10); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := e.AppendEncode(nil, s), oracleEncode(t, s); !slices.Equal(got, want) {
			require.Equal(t, want, got, "%q: %s", s, firstDiff(e, s, got, want))
		}
	}
}

// TestLongTextGrowth encodes long texts whose tokens are shorter than
// AppendEncode's first estimate (a token per four ASCII bytes), so that it
// grows the result once for the rest of the text: the ids must be
// tiktoken-go's, after a prefix left as it was, and the result allocated
// twice at most (the estimate and one growth; appending would double it
// several times), which is not checked under the race detector.
func TestLongTextGrowth(t *testing.T) {
	e := mustLoad(t)
	for _, text := range []string{
		strings.Repeat("a,", 50_000),
		strings.Repeat("1 ", 40_000) + strings.Repeat("x", 1000),
		strings.Repeat("if (x) { y(); }\n", 8_000),
	} {
		want := oracleEncode(t, text)
		require.GreaterOrEqual(t, len(want), len(text)/4+1000, "%.20q...: tokens, not denser than the estimate", text)
		prefix := []uint32{7, 8, 9}
		got := e.AppendEncode(prefix[:3:3], text)
		require.Equal(t, prefix, got[:3], "%.20q...: the prefix", text)
		if !slices.Equal(got[3:], want) {
			require.Equal(t, want, got[3:], "%.20q...: %s", text, firstDiff(e, text, got[3:], want))
		}
		if sample.Race {
			continue // the race detector's sync.Pool drops pooled memory at random
		}
		e.AppendEncode(nil, text) // the pooled working memory, warm
		allocs := testing.AllocsPerRun(5, func() { e.AppendEncode(nil, text) })
		assert.LessOrEqual(t, allocs, 2.0, "%.20q...: allocations", text)
	}
}

// TestAppendTokensBytes appends runs of ranks in one call: the bytes must
// be each rank's, after a prefix left as it was, up to the first id that is
// not a rank or the first that dst may not have room for (its longest
// token and the 16-byte word after it), and the count must say where it
// stopped.
func TestAppendTokensBytes(t *testing.T) {
	e := mustLoad(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		ids := make([]uint32, 1+rng.IntN(40))
		for i := range ids {
			ids[i] = uint32(rng.IntN(e.NumRanks()))
		}
		if rng.IntN(4) == 0 {
			ids[rng.IntN(len(ids))] = uint32(e.NumRanks()) + uint32(rng.IntN(100))
		}
		room := rng.IntN(600)
		dst := append(make([]byte, 0, 3+room), "abc"...)
		got, n := e.AppendTokensBytes(dst, ids)
		want, k := []byte("abc"), 0
		for _, id := range ids {
			if int(id) >= e.NumRanks() || len(want) > cap(dst)-e.maxLen-16 {
				break
			}
			want, k = append(want, e.TokenBytes(id)...), k+1
		}
		require.Equal(t, k, n, "ids %v, room %d: ids taken", ids, room)
		require.Equal(t, want, got, "ids %v, room %d", ids, room)
	}
}
