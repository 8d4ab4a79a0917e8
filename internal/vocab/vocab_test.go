package vocab

import (
	"bytes"
	"strings"
	"testing"
)

func TestEmbedded(t *testing.T) {
	data, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ranks, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ranks) != O200kBaseRanks {
		t.Fatalf("%d ranks, want %d", len(ranks), O200kBaseRanks)
	}
	if string(ranks[0]) != "!" || string(ranks[24912]) != "hello" || string(ranks[2375]) != " world" {
		t.Errorf("ranks 0, 24912, 2375 = %q %q %q", ranks[0], ranks[24912], ranks[2375])
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"", "aGk=\n", "aGk= x\n", "aGk= 1\n", "!!! 0\n", "aGk= 0\naGk= 0\n"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	ranks, err := Parse(strings.NewReader("aGk= 0\r\nYQ== 1\n"))
	if err != nil || len(ranks) != 2 || string(ranks[0]) != "hi" || string(ranks[1]) != "a" {
		t.Errorf("Parse = %q, %v", ranks, err)
	}
}
