// Package peer runs the encode-speed peer protocol for the Go peers of
// enginebench: invoked as EXE REPS FILE..., a peer encodes each file once
// untimed, then REPS times timed, and prints one line per file:
//
//	BASENAME<TAB>NUMBER_OF_IDS<TAB>SHA256HEX<TAB>NS1,NS2,...
//
// where SHA256HEX is over the ids as little-endian uint32s.
package peer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Encoder encodes text with o200k_base ordinary encoding and returns the ids.
type Encoder func(text string) ([]uint32, error)

// Main runs the protocol over os.Args and exits: 0 on success, 1 on an
// encoding or I/O error, 2 on bad arguments.
func Main(enc Encoder) {
	if err := Run(os.Args[1:], os.Stdout, enc); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		if _, ok := err.(usageError); ok {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError string

func (e usageError) Error() string { return string(e) }

// Run runs the protocol for args (REPS FILE...) and writes the result lines
// to w.
func Run(args []string, w io.Writer, enc Encoder) error {
	if len(args) < 2 {
		return usageError("usage: REPS FILE...")
	}
	reps, err := strconv.Atoi(args[0])
	if err != nil || reps < 1 {
		return usageError(fmt.Sprintf("bad REPS %q", args[0]))
	}
	for _, name := range args[1:] {
		line, err := runFile(name, reps, enc)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

func runFile(name string, reps int, enc Encoder) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s: not valid UTF-8", name)
	}
	text := string(data)
	ids, err := enc(text) // warm-up, untimed
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	ns := make([]string, reps)
	for i := range reps {
		start := time.Now()
		again, err := enc(text)
		d := time.Since(start)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if len(again) != len(ids) {
			return "", fmt.Errorf("%s: encode is not deterministic (%d ids, then %d)", name, len(ids), len(again))
		}
		ns[i] = strconv.FormatInt(d.Nanoseconds(), 10)
	}
	return fmt.Sprintf("%s\t%d\t%s\t%s\n", filepath.Base(name), len(ids), Sum(ids), strings.Join(ns, ",")), nil
}

// Sum returns the hex SHA-256 of ids as little-endian uint32s.
func Sum(ids []uint32) string {
	h := sha256.New()
	var buf [4096]byte
	for len(ids) > 0 {
		n := min(len(ids), len(buf)/4)
		for i, id := range ids[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], id)
		}
		h.Write(buf[:4*n])
		ids = ids[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Line is one parsed result line of a peer.
type Line struct {
	Name   string  // base name of the file
	IDs    int     // number of ids
	SHA256 string  // hex SHA-256 of the ids as little-endian uint32s
	NS     []int64 // nanoseconds of each timed encode
}

// ParseLine parses one result line (without its line break) of a peer.
func ParseLine(s string) (Line, error) {
	f := strings.Split(s, "\t")
	if len(f) != 4 {
		return Line{}, fmt.Errorf("peer line has %d tab-separated fields, want 4: %q", len(f), s)
	}
	var l Line
	l.Name = f[0]
	if l.Name == "" {
		return Line{}, fmt.Errorf("peer line has no file name: %q", s)
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return Line{}, fmt.Errorf("peer line has a bad id count %q", f[1])
	}
	l.IDs = n
	if len(f[2]) != 64 {
		return Line{}, fmt.Errorf("peer line has a bad SHA-256 %q", f[2])
	}
	if _, err := hex.DecodeString(f[2]); err != nil {
		return Line{}, fmt.Errorf("peer line has a bad SHA-256 %q", f[2])
	}
	l.SHA256 = strings.ToLower(f[2])
	for _, t := range strings.Split(f[3], ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil || v <= 0 {
			return Line{}, fmt.Errorf("peer line has a bad time %q", t)
		}
		l.NS = append(l.NS, v)
	}
	return l, nil
}
