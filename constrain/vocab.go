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
		b, err := enc.DecodeBytes(one)
		if err != nil || len(b) == 0 {
			continue
		}
		toks[id] = b
	}
	v := buildTrie(toks, func(b []byte) bool { return true })
	v.quote = buildTrie(toks, func(b []byte) bool { return slices.Contains(b, '"') })
	vocabCache[key] = v
	runtime.AddCleanup(enc, func(k weak.Pointer[harmony.Encoding]) {
		vocabMu.Lock()
		delete(vocabCache, k)
		vocabMu.Unlock()
	}, key)
	return v, nil
}

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

// bytes is the memory of the trie (the token bytes are the Encoding's).
func (v *vocab) bytes() int {
	n := 11 * len(v.nbyte)
	if v.quote != nil {
		n += v.quote.bytes()
	}
	return n
}
