package cache

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLRUOrderAndBudget(t *testing.T) {
	// Each entry: key of 1 byte + size 871 + overhead 128 = 1,000 bytes.
	c := New[int](4000 + 7999) // maxEntry ~1,499: every entry fits
	for i := range 4 {
		c.Put(string(rune('a'+i)), i, 871)
	}
	require.Equal(t, 4, c.Len())
	require.Equal(t, int64(4000), c.Bytes())
	_, ok := c.Get("a") // a is now the most recent; b the least
	require.True(t, ok)
	for i := 4; i < 12; i++ {
		c.Put(string(rune('a'+i)), i, 871)
	}
	require.Equal(t, 11, c.Len()) // 11,000 <= 11,999
	_, ok = c.Get("b")
	require.False(t, ok, "b was the least recently used and must be evicted first")
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, 0, v)
	require.LessOrEqual(t, c.Bytes(), c.Budget())
}

func TestReplaceAndTooLarge(t *testing.T) {
	c := New[string](8000)
	c.Put("k", "v1", 100)
	c.Put("k", "v2", 300)
	require.Equal(t, 1, c.Len())
	require.Equal(t, int64(1+300+EntryOverhead), c.Bytes())
	v, _ := c.GetBytes([]byte("k"))
	require.Equal(t, "v2", v)
	c.Put("big", "x", 1000) // over an eighth of the budget
	_, ok := c.Get("big")
	require.False(t, ok)
	c.Put("neg", "x", -5)
	require.Equal(t, int64(1+300+EntryOverhead)+3+EntryOverhead, c.Bytes())
}

func TestEvictsDownToBudget(t *testing.T) {
	c := New[[]byte](1 << 20)
	for i := range 10000 {
		key := fmt.Sprintf("%05d%s", i, strings.Repeat("x", i%300))
		c.Put(key, make([]byte, 500), 500)
		require.LessOrEqual(t, c.Bytes(), c.Budget(), "after %d puts", i+1)
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int](64 << 10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := fmt.Sprint((i * (g + 1)) % 300)
				if v, ok := c.Get(k); ok && !assert.Equal(t, k, fmt.Sprint(v), "key %s", k) {
					return
				}
				var n int
				fmt.Sscan(k, &n)
				c.Put(k, n, 64)
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, c.Bytes(), c.Budget())
}
