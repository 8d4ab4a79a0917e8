package vocab_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/go-harmony/harmony/internal/vocab/embedded"
)

func TestEmbedded(t *testing.T) {
	data, err := embedded.O200kBase()
	if err != nil {
		t.Fatal(err)
	}
	ranks, err := vocab.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ranks) != vocab.O200kBaseRanks {
		t.Fatalf("%d ranks, want %d", len(ranks), vocab.O200kBaseRanks)
	}
	if string(ranks[0]) != "!" || string(ranks[24912]) != "hello" || string(ranks[2375]) != " world" {
		t.Errorf("ranks 0, 24912, 2375 = %q %q %q", ranks[0], ranks[24912], ranks[2375])
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"", "aGk=\n", "aGk= x\n", "aGk= 1\n", "!!! 0\n", "aGk= 0\naGk= 0\n"} {
		if _, err := vocab.Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("vocab.Parse(%q) accepted", bad)
		}
	}
	ranks, err := vocab.Parse(strings.NewReader("aGk= 0\r\nYQ== 1\n"))
	if err != nil || len(ranks) != 2 || string(ranks[0]) != "hi" || string(ranks[1]) != "a" {
		t.Errorf("vocab.Parse = %q, %v", ranks, err)
	}
}
