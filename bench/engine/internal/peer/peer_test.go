package peer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/o200k"
)

// TestHarmonyPeerLineParses runs the protocol with harmony-go's encoder (as
// cmd/harmonypeer does) and checks that its output parses and matches the
// engine's own ids.
func TestHarmonyPeerLineParses(t *testing.T) {
	e, err := o200k.Load()
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello, world! 你好，世界。 Привет, мир 👋🏽\n\tfunc main() {}\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := func(s string) ([]uint32, error) { return e.AppendEncode(nil, s), nil }
	if err := Run([]string{"3", file, file}, &out, enc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), out.String())
	}
	want := e.AppendEncode(nil, text)
	for _, s := range lines {
		l, err := ParseLine(s)
		if err != nil {
			t.Fatal(err)
		}
		if l.Name != "small.txt" || l.IDs != len(want) || l.SHA256 != Sum(want) || len(l.NS) != 3 {
			t.Errorf("line %q: got %+v, want small.txt, %d ids, %s, 3 times", s, l, len(want), Sum(want))
		}
	}
}

func TestParseLineRejects(t *testing.T) {
	good := "a.txt\t3\t" + strings.Repeat("ab", 32) + "\t10,20"
	if _, err := ParseLine(good); err != nil {
		t.Fatalf("good line: %v", err)
	}
	for _, s := range []string{
		"",
		"a.txt\t3\t" + strings.Repeat("ab", 32),
		"a.txt\tx\t" + strings.Repeat("ab", 32) + "\t10",
		"a.txt\t3\tabc\t10",
		"a.txt\t3\t" + strings.Repeat("zz", 32) + "\t10",
		"a.txt\t3\t" + strings.Repeat("ab", 32) + "\t10,",
		"a.txt\t3\t" + strings.Repeat("ab", 32) + "\t0",
	} {
		if _, err := ParseLine(s); err == nil {
			t.Errorf("ParseLine(%q) accepted", s)
		}
	}
}
