package o200k

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCharTable checks the table of characters against its definition and
// the merge: every token that is one character of two to four bytes whose
// bytes merge into it has an entry with that token; every entry of several
// parts holds what the character's bytes merge into alone; U+FFFD may start
// as one part next to any bytes; and every character with an entry, between
// neighbours drawn from all of them, ASCII letters, spaces and punctuation
// (the bytes most often in its sets), merges as its bytes do, where the
// table lets it start as its entry and where it does not. When sampled, the
// merge of every 8th token's bytes is checked against its entry, and each
// character is placed among 2 pairs of neighbours instead of 20.
func TestCharTable(t *testing.T) {
	e := mustLoad(t)
	ct := e.chars()
	var table []string
	checked := 0
	for id := 0; id < e.numRanks; id++ {
		c := string(e.TokenBytes(uint32(id)))
		r, size := utf8.DecodeRuneInString(c)
		if size < 2 || size != len(c) {
			continue
		}
		v := ct.entries[int(ct.block[r/charBlock])*charBlock+int(r%charBlock)]
		if v != 0 {
			table = append(table, c)
		}
		if sample.Sampled() && id%8 != 0 {
			continue
		}
		checked++
		ref := bpeReference(e, c)
		merges := slices.Equal(ref, []uint32{uint32(id)})
		// The plain comparisons first, here and in the loops below:
		// testify's bookkeeping on every pass would slow the test several
		// times over.
		if v != 0 != merges {
			assert.Equal(t, merges, v != 0, "%q (%d): has an entry (%#x), bytes merge to %v", c, id, v, ref)
		} else if v != 0 && v&(1<<entryTokenBits-1) != uint32(id) {
			assert.Equal(t, uint32(id), v&(1<<entryTokenBits-1), "%q (%d): entry %#x's token", c, id, v)
		}
	}
	require.NotZero(t, checked, "no token of one character of several bytes checked")
	require.GreaterOrEqual(t, len(table), 5000, "characters in the table")
	multi := 0
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		v := ct.entries[int(ct.block[r/charBlock])*charBlock+int(r%charBlock)]
		tok := v & (1<<entryTokenBits - 1)
		if v == 0 || tok < ct.numRanks {
			continue
		}
		c := string(r)
		got, want := ct.parts(tok), bpeReference(e, c)
		assert.Equal(t, want, got, "%q: parts and the merge of its bytes", c)
		assert.GreaterOrEqual(t, len(got), 2, "%q: parts %v", c, got)
		table = append(table, c)
		multi++
	}
	assert.GreaterOrEqual(t, multi, 50, "characters that start as several parts")
	assert.True(t, ct.atomicEverywhere(utf8.RuneError), "U+FFFD is not atomic everywhere")

	neighbours := append(slices.Clone(table), "a", "Z", " ", "  ", "\n", "!", ",", "-", "'", "0", "é", "\u0301")
	rng := rand.New(rand.NewPCG(5, 6))
	n, whole := 200, 0
	if sample.Sampled() {
		n = 20
	}
	var w *work = e.getWork()
	defer e.putWork(w)
	for _, c := range table {
		for range n / 10 {
			x, y := neighbours[rng.IntN(len(neighbours))], neighbours[rng.IntN(len(neighbours))]
			for _, p := range []string{x + c + y, c + y, x + c, x + x + c + y + y} {
				if len(p) > smallPiece {
					continue
				}
				want := bpeReference(e, p)
				if got, ok := e.bpeChars(nil, p, w); !ok || !slices.Equal(got, want) {
					require.True(t, ok, "bpeChars(%q) = %v, false", p, got)
					require.Equal(t, want, got, "bpeChars(%q)", p)
				}
				if got := e.bpeLarge(nil, p, w); !slices.Equal(got, want) {
					require.Equal(t, want, got, "bpeLarge(%q)", p)
				}
			}
			r, _ := utf8.DecodeRuneInString(c)
			if ct.token(r, int(x[len(x)-1]), int(y[0])) != none {
				whole++
			}
		}
	}
	// Most characters start whole between these neighbours (the rule is
	// not vacuous).
	total := len(table) * (n / 10)
	assert.GreaterOrEqual(t, whole, total*3/4, "%d of %d placements start whole, want 3/4 or more", whole, total)
}
