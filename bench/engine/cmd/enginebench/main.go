// Command enginebench compares the encode speed of o200k_base encoders
// across processes ("peers") on large generated corpora, and checks that
// every peer produces the same ids as harmony-go.
//
// Run it from bench/engine:
//
//	go run ./cmd/enginebench -peers name=/path/to/exe,name2=/path2 [-rounds 5] [-reps 3] [-corpora DIR] [-only prose,cjk] [-skip peer:corpus,...] [-json out.json]
//
// harmony-go's own peer (cmd/harmonypeer) is always included; the driver
// builds it with go build. A peer path of the form go:PACKAGE is built the
// same way (e.g. tiktoken-go=go:./cmd/tiktokengopeer).
//
// A peer is any executable that follows the protocol of package
// internal/peer: invoked as EXE REPS FILE..., for each file it encodes the
// whole text with o200k_base ordinary encoding (no special tokens) once
// untimed, then REPS times timing only the encode call, single-threaded,
// and prints BASENAME<TAB>NUMBER_OF_IDS<TAB>SHA256HEX<TAB>NS1,NS2,...
// (SHA-256 over the ids as little-endian uint32s). It exits 0, or nonzero
// with the error on stderr.
//
// Each round runs every peer process once over all corpora, the order of
// the peers rotated from round to round so that machine noise is spread
// over all of them. The report gives, per corpus, the median MB/s
// (bytes/1e6 per second) of every peer over all rounds and reps, the ratio
// of harmony-go to the fastest other peer whose ids match, and whether
// every peer's ids equal harmony-go's (mismatching, missing and skipped
// peers are named).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/go-harmony/harmony/bench/engine/corpus"
	"github.com/go-harmony/harmony/bench/engine/internal/peer"
)

// self is the name of harmony-go's peer in the report.
const self = "harmony-go"

const selfPkg = "github.com/go-harmony/harmony/bench/engine/cmd/harmonypeer"

type config struct {
	peers   string
	rounds  int
	reps    int
	corpora string
	only    string
	json    string
	timeout time.Duration
	size    int
	skip    string
}

func main() {
	var c config
	flag.StringVar(&c.peers, "peers", "", "comma-separated name=/path/to/exe (or name=go:PACKAGE) of the peers beside harmony-go")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds; each runs every peer once, in rotated order")
	flag.IntVar(&c.reps, "reps", 3, "timed encodes of each corpus per peer process")
	flag.StringVar(&c.corpora, "corpora", "", "directory of NAME.txt corpora; generated into it if it has none, into a temporary directory if empty")
	flag.StringVar(&c.only, "only", "", "comma-separated corpus names to run (default: all)")
	flag.StringVar(&c.json, "json", "", "write the raw results to this JSON file")
	flag.DurationVar(&c.timeout, "timeout", 60*time.Minute, "time limit of one peer process")
	flag.IntVar(&c.size, "size", corpus.DefaultSize, "bytes per generated corpus")
	flag.StringVar(&c.skip, "skip", "", "comma-separated peer:corpus pairs not to run (e.g. a peer quadratic on long pieces); reported as skipped")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "enginebench: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	if err := run(c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(1)
	}
}

// peerSpec is one peer executable.
type peerSpec struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// corpusFile is one corpus.
type corpusFile struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// result is what one peer reported for one corpus over all rounds.
type result struct {
	IDs    int     `json:"ids"`
	SHA256 string  `json:"sha256"`
	NS     []int64 `json:"ns"`
	// Unstable is set when the peer reported different ids in different
	// rounds.
	Unstable bool `json:"unstable,omitempty"`
}

// report is the JSON output.
type report struct {
	Rounds  int                           `json:"rounds"`
	Reps    int                           `json:"reps"`
	GOOS    string                        `json:"goos"`
	GOARCH  string                        `json:"goarch"`
	CPUs    int                           `json:"cpus"`
	Peers   []peerSpec                    `json:"peers"`
	Corpora []corpusFile                  `json:"corpora"`
	Results map[string]map[string]*result `json:"results"` // peer -> corpus -> result
	Failed  map[string]string             `json:"failed,omitempty"`
	Skipped map[string][]string           `json:"skipped,omitempty"` // peer -> corpora not run
}

func run(c config, stdout, stderr io.Writer) error {
	if c.rounds < 1 || c.reps < 1 {
		return errors.New("-rounds and -reps must be at least 1")
	}
	tmp, err := os.MkdirTemp("", "enginebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	peers, err := parsePeers(c.peers)
	if err != nil {
		return err
	}
	selfPath := filepath.Join(tmp, "harmonypeer")
	if err := goBuild(selfPkg, selfPath); err != nil {
		return fmt.Errorf("building harmony-go's peer (run enginebench from bench/engine): %w", err)
	}
	peers = append([]peerSpec{{Name: self, Path: selfPath}}, peers...)
	for i, p := range peers {
		if pkg, ok := strings.CutPrefix(p.Path, "go:"); ok {
			exe := filepath.Join(tmp, "peer-"+p.Name)
			if err := goBuild(pkg, exe); err != nil {
				return fmt.Errorf("building peer %s: %w", p.Name, err)
			}
			peers[i].Path = exe
		}
	}

	files, err := findCorpora(c, tmp, stderr)
	if err != nil {
		return err
	}
	skipped, err := parseSkip(c.skip, peers, files)
	if err != nil {
		return err
	}

	rep := &report{
		Rounds: c.rounds, Reps: c.reps,
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		Peers: peers, Corpora: files,
		Results: map[string]map[string]*result{},
		Failed:  map[string]string{},
		Skipped: skipped,
	}
	for r := range c.rounds {
		for i := range peers {
			p := peers[(i+r)%len(peers)]
			if _, failed := rep.Failed[p.Name]; failed {
				continue
			}
			var run []corpusFile
			for _, f := range files {
				if !slices.Contains(skipped[p.Name], f.Name) {
					run = append(run, f)
				}
			}
			if len(run) == 0 {
				continue
			}
			start := time.Now()
			lines, err := runPeer(p, run, c.reps, c.timeout)
			if err != nil {
				fmt.Fprintf(stderr, "round %d/%d: %s FAILED: %v\n", r+1, c.rounds, p.Name, err)
				rep.Failed[p.Name] = err.Error()
				continue
			}
			fmt.Fprintf(stderr, "round %d/%d: %-16s %6.1fs\n", r+1, c.rounds, p.Name, time.Since(start).Seconds())
			rep.add(p.Name, run, lines)
		}
	}
	if _, failed := rep.Failed[self]; failed {
		return fmt.Errorf("harmony-go's peer failed: %s", rep.Failed[self])
	}
	writeTable(stdout, rep)
	if c.json != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(c.json, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// parsePeers parses name=path,name2=path2.
func parsePeers(s string) ([]peerSpec, error) {
	var out []peerSpec
	seen := map[string]bool{self: true}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, path, ok := strings.Cut(item, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("-peers: %q is not name=path", item)
		}
		if seen[name] {
			return nil, fmt.Errorf("-peers: duplicate or reserved name %q", name)
		}
		seen[name] = true
		if !strings.HasPrefix(path, "go:") {
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			if st, err := os.Stat(abs); err != nil || st.IsDir() {
				return nil, fmt.Errorf("-peers: %s: %s is not an executable file", name, path)
			}
			path = abs
		}
		out = append(out, peerSpec{Name: name, Path: path})
	}
	return out, nil
}

func goBuild(pkg, out string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// parseSkip parses peer:corpus,... into the corpora to skip for each peer.
func parseSkip(s string, peers []peerSpec, files []corpusFile) (map[string][]string, error) {
	out := map[string][]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, c, ok := strings.Cut(item, ":")
		if !ok || p == self {
			return nil, fmt.Errorf("-skip: %q is not peer:corpus (for a peer other than %s)", item, self)
		}
		if !slices.ContainsFunc(peers, func(x peerSpec) bool { return x.Name == p }) {
			return nil, fmt.Errorf("-skip: no peer %q", p)
		}
		if !slices.ContainsFunc(files, func(f corpusFile) bool { return f.Name == c }) {
			return nil, fmt.Errorf("-skip: no corpus %q", c)
		}
		out[p] = append(out[p], c)
	}
	return out, nil
}

// findCorpora lists the corpora to run, generating them if needed.
func findCorpora(c config, tmp string, stderr io.Writer) ([]corpusFile, error) {
	var only []string
	if c.only != "" {
		only = strings.Split(c.only, ",")
	}
	dir := c.corpora
	if dir == "" {
		dir = filepath.Join(tmp, "corpora")
	}
	existing, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(existing) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		seeds, err := corpus.FindSeeds(wd)
		if err != nil {
			return nil, err
		}
		g, err := corpus.NewGenerator(seeds)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "generating corpora into %s\n", dir)
		var names []string
		for _, n := range corpus.Names {
			if len(only) == 0 || slices.Contains(only, n) {
				names = append(names, n)
			}
		}
		if _, err := g.WriteAll(dir, names, c.size); err != nil {
			return nil, err
		}
		existing, _ = filepath.Glob(filepath.Join(dir, "*.txt"))
	}
	byName := map[string]string{}
	for _, p := range existing {
		byName[strings.TrimSuffix(filepath.Base(p), ".txt")] = p
	}
	// The known corpora in report order, then any others by name.
	var names []string
	for _, n := range corpus.Names {
		if _, ok := byName[n]; ok {
			names = append(names, n)
		}
	}
	var extra []string
	for n := range byName {
		if !slices.Contains(corpus.Names, n) {
			extra = append(extra, n)
		}
	}
	slices.Sort(extra)
	names = append(names, extra...)
	var out []corpusFile
	for _, n := range names {
		if len(only) > 0 && !slices.Contains(only, n) {
			continue
		}
		p, err := filepath.Abs(byName[n])
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		out = append(out, corpusFile{Name: n, Path: p, Bytes: st.Size()})
	}
	for _, n := range only {
		if !slices.ContainsFunc(out, func(f corpusFile) bool { return f.Name == n }) {
			return nil, fmt.Errorf("-only: no corpus %q in %s", n, dir)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no corpora in %s", dir)
	}
	return out, nil
}

// runPeer runs one peer process over all files and checks its output.
func runPeer(p peerSpec, files []corpusFile, reps int, timeout time.Duration) ([]peer.Line, error) {
	args := []string{fmt.Sprint(reps)}
	for _, f := range files {
		args = append(args, f.Path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %v", ctx.Err(), timeout)
		}
		return nil, fmt.Errorf("%v: %s", err, tail(stderr.String()))
	}
	var lines []peer.Line
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		l, err := peer.ParseLine(sc.Text())
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	if len(lines) != len(files) {
		return nil, fmt.Errorf("printed %d result lines for %d files", len(lines), len(files))
	}
	for i, l := range lines {
		if want := filepath.Base(files[i].Path); l.Name != want {
			return nil, fmt.Errorf("line %d is for %q, want %q", i+1, l.Name, want)
		}
		if len(l.NS) != reps {
			return nil, fmt.Errorf("%s: %d times, want %d", l.Name, len(l.NS), reps)
		}
	}
	return lines, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

func (rep *report) add(name string, files []corpusFile, lines []peer.Line) {
	m := rep.Results[name]
	if m == nil {
		m = map[string]*result{}
		rep.Results[name] = m
	}
	for i, l := range lines {
		c := files[i].Name
		r := m[c]
		if r == nil {
			m[c] = &result{IDs: l.IDs, SHA256: l.SHA256, NS: l.NS}
			continue
		}
		if r.IDs != l.IDs || r.SHA256 != l.SHA256 {
			r.Unstable = true
		}
		r.NS = append(r.NS, l.NS...)
	}
}

func median(ns []int64) float64 {
	s := slices.Clone(ns)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return (float64(s[n/2-1]) + float64(s[n/2])) / 2
}

// mbps is the median speed in MB/s (1e6 bytes per second).
func mbps(bytes int64, ns []int64) float64 {
	return float64(bytes) / 1e6 / (median(ns) / 1e9)
}

func writeTable(w io.Writer, rep *report) {
	var names []string
	for _, p := range rep.Peers {
		names = append(names, p.Name)
	}
	fmt.Fprintf(w, "Median MB/s (10^6 bytes/s) over %d rounds × %d reps, %s/%s, %d CPUs.\n\n",
		rep.Rounds, rep.Reps, rep.GOOS, rep.GOARCH, rep.CPUs)
	fmt.Fprintf(w, "| corpus | MB | tokens | %s | %s / fastest other | ids = %s |\n", strings.Join(names, " | "), self, self)
	fmt.Fprintf(w, "|---|---:|---:|%s---:|---|\n", strings.Repeat("---:|", len(names)))
	for _, c := range rep.Corpora {
		ref := rep.Results[self][c.Name]
		cells := []string{c.Name, fmt.Sprintf("%.2f", float64(c.Bytes)/1e6), fmt.Sprint(ref.IDs)}
		var selfSpeed, best float64
		bestName := ""
		var mismatch, missing, skipped []string
		for _, n := range names {
			r := rep.Results[n][c.Name]
			if r == nil {
				cells = append(cells, "—")
				if slices.Contains(rep.Skipped[n], c.Name) {
					skipped = append(skipped, n)
				} else {
					missing = append(missing, n)
				}
				continue
			}
			s := mbps(c.Bytes, r.NS)
			cells = append(cells, fmt.Sprintf("%.1f", s))
			switch {
			case r.Unstable:
				mismatch = append(mismatch, n+" (unstable)")
			case r.IDs != ref.IDs || r.SHA256 != ref.SHA256:
				mismatch = append(mismatch, fmt.Sprintf("%s (%d ids)", n, r.IDs))
			case n == self:
				selfSpeed = s
			case s > best:
				// Only a peer whose ids match competes for fastest.
				best, bestName = s, n
			}
		}
		if bestName == "" {
			cells = append(cells, "—")
		} else {
			cells = append(cells, fmt.Sprintf("%.2f× (%s)", selfSpeed/best, bestName))
		}
		var check string
		switch {
		case len(mismatch) == 0 && len(missing) == 0 && len(skipped) == 0:
			check = "✓ all"
		default:
			var parts []string
			if len(mismatch) > 0 {
				parts = append(parts, "MISMATCH: "+strings.Join(mismatch, ", "))
			}
			if len(missing) > 0 {
				parts = append(parts, "missing: "+strings.Join(missing, ", "))
			}
			if len(skipped) > 0 {
				if len(parts) == 0 {
					parts = append(parts, "✓ others")
				}
				parts = append(parts, "skipped: "+strings.Join(skipped, ", "))
			}
			check = strings.Join(parts, "; ")
		}
		cells = append(cells, check)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	if len(rep.Failed) > 0 {
		fmt.Fprintln(w)
		for _, n := range slices.Sorted(maps.Keys(rep.Failed)) {
			fmt.Fprintf(w, "- %s failed: %s\n", n, strings.ReplaceAll(rep.Failed[n], "\n", " "))
		}
	}
}
