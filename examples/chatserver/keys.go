package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/go-harmony/harmony/openaicompat"
)

// reasoningKeysEnv is the environment variable of the reasoning keys, the
// other way to give them than -reasoning-keys-file.
const reasoningKeysEnv = "CHATSERVER_REASONING_KEYS"

// Secrets are read from a file or the environment, never from the command
// line, which every user of the machine can read (ps, /proc/PID/cmdline);
// a process's environment only its user can.

// readSecretFile reads a file of secrets, and warns on stderr when users
// other than its owner may read it.
func readSecretFile(path string, stderr io.Writer) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(stderr, "chatserver: warning: other users may read %s (mode %04o): chmod 600 it\n", path, fi.Mode().Perm())
	}
	return io.ReadAll(f)
}

// secretLines yields the lines of a file of secrets that hold something,
// trimmed of spaces, with their numbers (from 1): blank lines and lines
// starting with # are skipped.
func secretLines(data []byte) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		n := 0
		for line := range strings.Lines(string(data)) {
			n++
			if line = strings.TrimSpace(line); line != "" && line[0] != '#' && !yield(n, line) {
				return
			}
		}
	}
}

// loadAPIKeys reads the -api-keys file; "" means no keys.
func loadAPIKeys(path string, stderr io.Writer) (*apiKeys, error) {
	if path == "" {
		return nil, nil
	}
	data, err := readSecretFile(path, stderr)
	if err != nil {
		return nil, fmt.Errorf("-api-keys: %w", err)
	}
	keys, err := readAPIKeys(data)
	if err != nil {
		return nil, fmt.Errorf("-api-keys %s: %w", path, err)
	}
	return keys, nil
}

// loadReasoningSealer returns the sealer of the reasoning keys of the file
// path (base64, one a line; blank lines and lines starting with # skipped)
// or of env, the value of $CHATSERVER_REASONING_KEYS (base64,
// comma-separated): the first key seals, all open. Neither gives nil (the
// server then makes a key of its own); both are an error. Errors name a
// key by its place, never show it.
func loadReasoningSealer(path, env string, stderr io.Writer) (*openaicompat.ReasoningSealer, error) {
	var texts []string
	var where string
	switch {
	case path != "" && env != "":
		return nil, fmt.Errorf("-reasoning-keys-file and $%s both give reasoning keys: give them one way", reasoningKeysEnv)
	case path != "":
		data, err := readSecretFile(path, stderr)
		if err != nil {
			return nil, fmt.Errorf("-reasoning-keys-file: %w", err)
		}
		for _, line := range secretLines(data) {
			texts = append(texts, line)
		}
		where = "-reasoning-keys-file " + path
	case env != "":
		texts = strings.Split(env, ",")
		where = "$" + reasoningKeysEnv
	default:
		return nil, nil
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no keys", where)
	}
	keys := make([][]byte, len(texts))
	for i, t := range texts {
		k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(t))
		if err != nil {
			return nil, fmt.Errorf("%s: key %d is not base64", where, i+1)
		}
		keys[i] = k
	}
	sealer, err := openaicompat.NewReasoningSealer(keys...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return sealer, nil
}

// errReasoningKeysFlag refuses -reasoning-keys, which took the keys
// themselves on the command line.
var errReasoningKeysFlag = errors.New("-reasoning-keys is no longer accepted: every user of the machine can read a command line " +
	"(ps, /proc/PID/cmdline); give the keys in a file only you can read (-reasoning-keys-file FILE) or in $" + reasoningKeysEnv)
