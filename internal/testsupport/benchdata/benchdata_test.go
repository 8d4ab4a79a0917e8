package benchdata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"
)

// TestPinned pins the conversations byte for byte: a change to them changes
// what every benchmark measures, and numbers from before and after no longer
// compare.
func TestPinned(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		sum  string
	}{
		{"Large", Large(), "54ec51a3bfca475fe8cf10ee2e40af7479682514d2385827bfcc5e84ed1adefa"},
		{"Small", Small(), "fddfc21b79ad220c0b954eea991a253109584e26e3a537909b6ca976cfe9a12a"},
	} {
		sum := sha256.Sum256(tc.data)
		if got := hex.EncodeToString(sum[:]); got != tc.sum {
			t.Errorf("%s: SHA-256 %s, want %s", tc.name, got, tc.sum)
		}
		if bytes.IndexByte(tc.data, '\n') >= 0 {
			t.Errorf("%s holds a newline", tc.name)
		}
	}
}

func TestLarge(t *testing.T) {
	data := Large()
	data[0] = 'x' // the caller's copy
	if !bytes.Equal(Large()[:1], []byte("{")) {
		t.Fatal("Large returned shared bytes")
	}
	var c struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(Large(), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != LargeMessages {
		t.Fatalf("%d messages, want %d", len(c.Messages), LargeMessages)
	}
	roles := map[string]int{}
	for _, m := range c.Messages {
		var role string
		json.Unmarshal(m["role"], &role)
		roles[role]++
	}
	want := map[string]int{"system": 1, "developer": 1, "user": 400, "assistant": 1199, "tool": 399}
	if !reflect.DeepEqual(roles, want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
	texts, err := Texts(Large(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 5*LargeMessages {
		t.Errorf("%d texts, want %d", len(texts), 5*LargeMessages)
	}
	if n := Size(texts); n < 4_800_000 || n > 5_000_000 {
		t.Errorf("%d bytes of text, want about 4.9 MB", n)
	}
}

func TestTexts(t *testing.T) {
	var parts [][]byte
	part := func(raw []byte) (string, error) {
		parts = append(parts, raw)
		return "DEV", nil
	}
	got, err := Texts(Small(), part)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"developer", "", "", "", "DEV", "user", "", "", "", "What is the weather in Tokyo?"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(parts) != 1 || !bytes.HasPrefix(parts[0], []byte(`{"type":"developer_content",`)) {
		t.Errorf("part saw %q", parts)
	}
	if got, _ := Texts(Small(), nil); got[4] != string(parts[0]) {
		t.Errorf("nil part: %q, want the part's JSON", got[4])
	}

	// A bare array, content parts, unset fields.
	got, err = Texts([]byte(` [{"role":"assistant","channel":"final","recipient":"x","content_type":"json","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]`), nil)
	want = []string{"assistant", "final", "x", "json", "a", "b"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{``, `{}`, `{"messages":1}`, `[{"role":"user","content":1}]`, `[{"role":"user","content":[1]}]`} {
		if _, err := Texts([]byte(bad), nil); err == nil {
			t.Errorf("Texts(%s): no error", bad)
		}
	}
}
