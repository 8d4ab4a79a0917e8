package testenc

import (
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/stretchr/testify/assert"
)

func TestEncodingShared(t *testing.T) {
	a, b := Encoding(t), Encoding(t)
	assert.Same(t, a, b, "one encoding per test binary")
	assert.Equal(t, string(harmony.HarmonyGptOss), a.Name())
}
