package o200k

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/sample"
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
		merges := slices.Equal(bpeReference(e, c), []uint32{uint32(id)})
		if v != 0 != merges || v != 0 && v&(1<<entryTokenBits-1) != uint32(id) {
			t.Errorf("%q (%d): entry %#x, bytes merge to %v", c, id, v, bpeReference(e, c))
		}
	}
	if checked == 0 {
		t.Fatal("no token of one character of several bytes checked")
	}
	if len(table) < 5000 {
		t.Fatalf("%d characters in the table", len(table))
	}
	multi := 0
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		v := ct.entries[int(ct.block[r/charBlock])*charBlock+int(r%charBlock)]
		tok := v & (1<<entryTokenBits - 1)
		if v == 0 || tok < ct.numRanks {
			continue
		}
		c := string(r)
		if got, want := ct.parts(tok), bpeReference(e, c); !slices.Equal(got, want) || len(got) < 2 {
			t.Errorf("%q: parts %v, bytes merge to %v", c, got, want)
		}
		table = append(table, c)
		multi++
	}
	if multi < 50 {
		t.Errorf("%d characters start as several parts", multi)
	}
	if !ct.atomicEverywhere(utf8.RuneError) {
		t.Error("U+FFFD is not atomic everywhere")
	}

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
				if got, ok := e.bpeChars(nil, p, w); !ok || !slices.Equal(got, bpeReference(e, p)) {
					t.Fatalf("bpeChars(%q) = %v, %v, want %v, true", p, got, ok, bpeReference(e, p))
				}
				if got, want := e.bpeLarge(nil, p, w), bpeReference(e, p); !slices.Equal(got, want) {
					t.Fatalf("bpeLarge(%q) = %v, want %v", p, got, want)
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
	if total := len(table) * (n / 10); whole < total*3/4 {
		t.Errorf("%d of %d placements start whole, want 3/4 or more", whole, total)
	}
}
