package vocab_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/go-harmony/harmony/internal/vocab/embedded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmbedded(t *testing.T) {
	data, err := embedded.O200kBase()
	require.NoError(t, err)
	ranks, err := vocab.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, ranks, vocab.O200kBaseRanks)
	assert.Equal(t, "!", string(ranks[0]), "rank 0")
	assert.Equal(t, "hello", string(ranks[24912]), "rank 24912")
	assert.Equal(t, " world", string(ranks[2375]), "rank 2375")
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"", "aGk=\n", "aGk= x\n", "aGk= 1\n", "!!! 0\n", "aGk= 0\naGk= 0\n"} {
		_, err := vocab.Parse(strings.NewReader(bad))
		assert.Error(t, err, "vocab.Parse(%q) accepted", bad)
	}
	ranks, err := vocab.Parse(strings.NewReader("aGk= 0\r\nYQ== 1\n"))
	require.NoError(t, err)
	require.Len(t, ranks, 2)
	assert.Equal(t, "hi", string(ranks[0]))
	assert.Equal(t, "a", string(ranks[1]))
}
