package o200k

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
)

// Memory bound: encoding holds at most memPerByte bytes of heap per byte
// of input, beyond memFixed (the pooled working memory: the pair memo and
// the rank-to-bucket map, under 1 MiB, with room to spare), whatever the
// input. See TestMemoryBound.
const (
	memPerByte = 16
	memFixed   = 8 << 20
)

// TestMemoryBound encodes single runs of one unit (one piece each, or for
// digits and "<|start|>" many short ones) and checks the live heap's high
// water against memPerByte times the input plus memFixed. The input is
// 8 MiB, or 1 MiB under the race detector.
func TestMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 72 MiB")
	}
	e := mustLoad(t)
	size := 8 << 20
	if sample.Race {
		size = 1 << 20
	}
	for _, c := range []struct{ name, unit string }{
		{"0xFF", "\xff"}, {"a", "a"}, {"CJK", "中"}, {"emoji", "😀"}, {"space", " "},
		{"CRLF", "\r\n"}, {"digit", "1"}, {"U+FFFD", "\uFFFD"}, {"special", "<|start|>"},
		// A tag character: four bytes, each a token of its own, so the
		// ids are four times the text.
		{"tag", "\U000E0067"}, {"ab", "ab"}, {"é", "é"},
	} {
		text := strings.Repeat(c.unit, size/len(c.unit))
		var ids []uint32
		peak := peakHeap(func() { ids = e.AppendEncode(nil, text) })
		ratio := float64(peak) / float64(len(text))
		t.Logf("%-8s %d tokens, peak live heap %.1f MiB = %.2f× input", c.name, len(ids), float64(peak)/(1<<20), ratio)
		assert.LessOrEqual(t, peak, uint64(memPerByte*len(text)+memFixed), "%s: peak live heap over %d×%d + %d", c.name, memPerByte, len(text), memFixed)
	}
}

// peakHeap returns the highest live heap, less the live heap before, that
// the collector sees at the end of any cycle during f. The collector is set
// to run after every 5% of growth, so the figure is the true high water to
// within 5% or one allocation; it can read low, not high, so a test on it
// cannot fail by chance. A finalizer, set again each time it runs, samples
// /gc/heap/live:bytes after each cycle.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	base := liveHeap()
	var peak atomic.Uint64
	var stop atomic.Bool
	done := make(chan struct{})
	var arm func()
	arm = func() {
		sentinel := new([64]byte)
		runtime.SetFinalizer(sentinel, func(*[64]byte) {
			if v := liveHeap(); v > peak.Load() {
				peak.Store(v)
			}
			if stop.Load() {
				close(done)
				return
			}
			arm()
		})
	}
	arm()
	f()
	stop.Store(true)
	// Collect until the finalizer has seen stop: a sentinel armed during a
	// cycle outlives it, so this may take a cycle more.
	for {
		runtime.GC()
		select {
		case <-done:
			if p := peak.Load(); p > base {
				return p - base
			}
			return 0
		default:
			runtime.Gosched()
		}
	}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
