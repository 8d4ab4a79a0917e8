package constrain

// The token trie. Every ordinary token's bytes go into one trie laid out in
// preorder in flat arrays: node i has a byte, the token that ends there (or
// -1), its depth, and the index just past its subtree. A mask is computed by
// walking the array and skipping a whole subtree as soon as its prefix is
// refused, with the automaton state of every depth on a stack.
//
// The trie depends only on the vocabulary, so it is built once per Encoding
// (about 100 ms, 10 MB) and kept in a cache keyed by a weak pointer to it:
// the entry goes when the Encoding does.

import (
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/go-harmony/harmony"
)

// vocab is the token trie of one Encoding and the masks derived from it,
// shared by every Grammar over it. The trie's nodes are in preorder in
// nbyte, ntok, nskip and ndep: node i is reached by byte nbyte[i], ends
// token ntok[i] (-1: none), is at depth ndep[i] (1 for the root's
// children, the root itself not stored), and its subtree ends before node
// nskip[i].
type vocab struct {
	size  int      // ids, specials included
	toks  [][]byte // bytes of each ordinary token; nil for specials
	nbyte []byte
	ntok  []int32
	nskip []int32
	ndep  []uint16
	// quote is the same layout for the tokens holding a '"': the only
	// tokens that can leave a string.
	quote  *vocab
	maxLen int
	// cps is the number of code points each token writes inside a string
	// when it starts outside an escape; maxCps the most of them.
	cps    []uint8
	maxCps int

	// For each trie node whose byte is '"' (openAt >= 0): the tokens below
	// it whose rest stays inside a string of unconstrained content
	// (openStay), and those whose rest closes it again (openExit), in CSR
	// form. A walk that opens such a string there takes the first set
	// whole and replays only the second.
	openAt    []int32
	openOff   []int32
	openStay  []int32
	openExOff []int32
	openExit  []int32

	mu       sync.Mutex
	uinner   map[int32][]uint64 // inner masks of the universal string automaton, by state
	cpsMasks map[int][]uint64   // tokens writing at most k code points, by k
	ordinary []uint64           // every ordinary token, built on first use
}

// words is the length of a mask over v: a bit per token id, specials
// included.
func (v *vocab) words() int { return (v.size + 63) / 64 }

// universalInner returns the mask of the tokens that stay inside a string
// whose content is unconstrained, from universal state st outside an
// escape. Built once per vocabulary and state.
func (v *vocab) universalInner(m *Matcher, st int32) []uint64 {
	v.mu.Lock()
	in, ok := v.uinner[st]
	v.mu.Unlock()
	if ok {
		return in
	}
	in = make([]uint64, v.words())
	m.walkInner(v, frame{kind: fStr, d: universalDFA, st: st, n: &node{str: universalDFA, strMax: -1}}, in)
	v.mu.Lock()
	v.uinner[st] = in
	v.mu.Unlock()
	return in
}

// cpsMask returns the mask of the tokens that write at most k code points.
func (v *vocab) cpsMask(k int) []uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if m, ok := v.cpsMasks[k]; ok {
		return m
	}
	m := make([]uint64, v.words())
	for t, c := range v.cps {
		if v.toks[t] != nil && int(c) <= k {
			m[t>>6] |= 1 << (t & 63)
		}
	}
	v.cpsMasks[k] = m
	return m
}

// ordinaryMask returns the mask of every ordinary token: free text.
func (v *vocab) ordinaryMask() []uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ordinary == nil {
		m := make([]uint64, v.words())
		for t, b := range v.toks {
			if b != nil {
				m[t>>6] |= 1 << (t & 63)
			}
		}
		v.ordinary = m
	}
	return v.ordinary
}

// codePoints counts the code points b writes inside a string, starting
// outside an escape: a lead byte or an escape is one (a surrogate pair's
// second half none).
func codePoints(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\':
			if i+5 < len(b) && b[i+1] == 'u' {
				if v := hex4(b[i+2 : i+6]); v >= 0xDC00 && v <= 0xDFFF {
					i += 5
					continue
				}
			}
			n++
			i++
		case c < 0x80 || c >= 0xC0:
			n++
		}
	}
	return n
}

// hex4 returns the value of four hexadecimal digits, -1 when one is not.
func hex4(b []byte) int32 {
	v := int32(0)
	for _, c := range b {
		h := hexVal(c)
		if h < 0 {
			return -1
		}
		v = v<<4 | h
	}
	return v
}

var (
	vocabMu    sync.Mutex
	vocabCache = map[weak.Pointer[harmony.Encoding]]*vocab{}
)

// vocabFor returns the trie of enc's vocabulary, building it once.
func vocabFor(enc *harmony.Encoding) (*vocab, error) {
	key := weak.Make(enc)
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v, ok := vocabCache[key]; ok {
		return v, nil
	}
	size := enc.VocabSize()
	toks := make([][]byte, size)
	one := make([]harmony.Token, 1)
	for id := 0; id < size; id++ {
		t := harmony.Token(id)
		if enc.IsSpecial(t) {
			continue
		}
		one[0] = t
		b, err := enc.AppendBytes(nil, one)
		if err != nil || len(b) == 0 {
			continue
		}
		toks[id] = b
	}
	v := buildTrie(toks, func(b []byte) bool { return true })
	v.quote = buildTrie(toks, func(b []byte) bool { return slices.Contains(b, '"') })
	v.uinner = map[int32][]uint64{}
	v.cpsMasks = map[int][]uint64{}
	v.cps = make([]uint8, size)
	for id, b := range toks {
		c := min(codePoints(b), 255)
		v.cps[id] = uint8(c)
		if b != nil {
			v.maxCps = max(v.maxCps, c)
		}
	}
	v.buildOpen()
	// The inner masks of an unconstrained string are needed by nearly
	// every schema: build them now rather than on some first mask.
	m := &Matcher{}
	for st := 0; st < universalDFA.states(); st++ {
		v.universalInner(m, int32(st))
	}
	vocabCache[key] = v
	runtime.AddCleanup(enc, func(k weak.Pointer[harmony.Encoding]) {
		vocabMu.Lock()
		delete(vocabCache, k)
		vocabMu.Unlock()
	}, key)
	return v, nil
}

// buildTrie lays out the trie of the tokens of toks (by id, nil for special
// tokens) that keep accepts. Sorting the tokens by their bytes makes the
// preorder a single pass: each token adds the nodes past its common prefix
// with the one before, and closes (sets nskip of) those deeper than that
// prefix.
func buildTrie(toks [][]byte, keep func([]byte) bool) *vocab {
	ids := make([]int32, 0, len(toks))
	for id, b := range toks {
		if b != nil && keep(b) {
			ids = append(ids, int32(id))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int { return slices.Compare(toks[a], toks[b]) })
	v := &vocab{size: len(toks), toks: toks}
	// Sorted byte strings give the preorder directly: each token adds the
	// nodes of its bytes beyond the common prefix with the previous one.
	var path []int32 // node index at each depth
	var prev []byte
	for _, id := range ids {
		b := toks[id]
		v.maxLen = max(v.maxLen, len(b))
		common := 0
		for common < len(prev) && common < len(b) && prev[common] == b[common] {
			common++
		}
		// Close the nodes deeper than the common prefix.
		for d := len(path) - 1; d >= common; d-- {
			v.nskip[path[d]] = int32(len(v.nbyte))
		}
		path = path[:common]
		for d := common; d < len(b); d++ {
			path = append(path, int32(len(v.nbyte)))
			v.nbyte = append(v.nbyte, b[d])
			v.ntok = append(v.ntok, -1)
			v.nskip = append(v.nskip, 0)
			v.ndep = append(v.ndep, uint16(d+1))
		}
		v.ntok[path[len(b)-1]] = id
		prev = b
	}
	for d := len(path) - 1; d >= 0; d-- {
		v.nskip[path[d]] = int32(len(v.nbyte))
	}
	return v
}

// buildOpen fills the open* tables: for each trie node of a '"', the
// tokens below it are replayed from a string of unconstrained content just
// opened, and sorted into those that stay inside it and those that leave
// it (a quote closes it); the tokens refused inside such a string (a
// control byte, bytes that are not UTF-8, a bad escape) are in neither.
func (v *vocab) buildOpen() {
	v.openAt = make([]int32, len(v.nbyte))
	st := &stepper{maxWS: 0}
	base := thread{top: frame{kind: fStr, d: universalDFA, n: &node{str: universalDFA, strMax: -1}}, rest: &link{f: frame{kind: fRoot, phase: 1}}}
	var buf []thread
	for i := range v.nbyte {
		v.openAt[i] = -1
		if v.nbyte[i] != '"' {
			continue
		}
		v.openAt[i] = int32(len(v.openOff))
		v.openOff = append(v.openOff, int32(len(v.openStay)))
		v.openExOff = append(v.openExOff, int32(len(v.openExit)))
		d := int(v.ndep[i])
		for j := int32(i); j < v.nskip[i]; j++ {
			t := v.ntok[j]
			if t < 0 {
				continue
			}
			th := base
			stays := true
			for _, c := range v.toks[t][d:] {
				buf = st.step(th, c, buf[:0])
				if len(buf) == 0 {
					stays = false
					break
				}
				th = buf[0]
				if th.top.kind != fStr {
					stays = false
					v.openExit = append(v.openExit, t)
					break
				}
			}
			if stays {
				v.openStay = append(v.openStay, t)
			}
		}
	}
	v.openOff = append(v.openOff, int32(len(v.openStay)))
	v.openExOff = append(v.openExOff, int32(len(v.openExit)))
}
