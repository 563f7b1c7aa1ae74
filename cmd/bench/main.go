// Command bench measures omoide: retrieval quality on the evaluation suites,
// latency at scale, and the inject thresholds.
//
// Usage:
//
//	bench <mode> [flags]
//
// Modes:
//
//	latency  per-stage retrieval latency, ingest rate, store size, peak RSS and
//	         open time of the reference and default presets side by side
//	eval     Recall@1/5/10, MRR@10, nDCG@10, the inject decision and what it
//	         delivers (deliv-R: delivered recall, ev-prec: evidence precision,
//	         inj/q: injected episodes per query, every query counted) on suites
//	         in the ../shared/eval format, per suite, category and configuration
//	tune     sweep the rules of the inject decision, the gate and the
//	         High/Medium thresholds (and optionally the rerank weights),
//	         offline from one retrieval per query, with a plot; the relevance
//	         model is off while it runs (train studies its threshold)
//	train    fit the relevance model of the inject decision (rerank.Fit) on
//	         half of each suite's people or queries, and report its
//	         calibration and its decision at several thresholds on the other
//	         half; -o writes the model, -rows the candidates' features
//
// Every mode prints a table to stdout and, with -json FILE, writes its figures
// as one JSON object.
//
// Every mode chooses the embedder with the flags of omoide's commands:
// -embedder hash|openai, -endpoint URL, -model M, -dim N and -key-env NAME,
// whose defaults come from the environment variables OMOIDE_EMBEDDER,
// OMOIDE_ENDPOINT, OMOIDE_MODEL and OMOIDE_DIM (hash at 256 dimensions
// without them), and with openai's request options -batch N and -dimensions.
// -index-min sizes the in-memory vector indexes of the stores it builds.
//
// Run "bench <mode> -help" for a mode's flags. Exit status: 0 on success, 1
// on failure, 2 on a usage error.
package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/omoide/omoide/cmd/internal/cli"
)

// program is bench's command line.
var program = cli.Program{Name: "bench", Noun: "mode", Commands: []cli.Command{
	{Name: "latency", Summary: "per-stage latency, ingest rate, store size, peak RSS, open time (reference vs default)", Run: runLatency},
	{Name: "eval", Summary: "ranking metrics and inject decisions on evaluation suites", Run: runEval},
	{Name: "tune", Summary: "sweep the rerank thresholds (and weights) offline, with a plot", Run: runTune},
	{Name: "paraphrase", Summary: "write a labelled suite of questions in other words (and siblings) over the haystack's exchanges, for bench train", Run: runParaphrase},
	{Name: "salience", Summary: "fit the salience model (what an exchange is worth remembering) on the suites' ratings, report on the judged halves", Run: runSalience},
	{Name: "train", Summary: "fit the relevance model of the inject decision on the suites, report on a held-back half", Run: runTrain},
	{Name: "load", Summary: "a live omoide serve under concurrent clients, reads and writes: throughput, p50/p99/max per kind, errors", Run: runLoad},
	{Name: "cluster", Summary: "N nodes behind the proxy on loopback: writes, retrievals against one node, a node added, a restore", Run: runCluster},
}}

// errUsage marks an error in how the command was called (exit status 2).
var errUsage = cli.ErrUsage

func main() { program.Main() }

// newFlagSet returns the flag set of a mode, which reports errors instead of
// exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet("bench", name, stderr)
}

// parse parses args, flags only, wrapping a bad flag as a usage error.
var parse = cli.Parse

// workDir returns the folder a mode works in: dir (made if missing), or a
// temporary one that cleanup removes.
func workDir(dir, mode string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	d, err := os.MkdirTemp("", "omoide-"+mode+"-")
	return d, func() { os.RemoveAll(d) }, err
}

// listFlag is a repeatable flag whose values may also be comma lists.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// or returns l, or def when l is empty.
func (l listFlag) or(def ...string) []string {
	if len(l) == 0 {
		return def
	}
	return l
}

// report is the JSON document of a run (-json FILE). A run with one result
// also has that result's fields at the top level.
type report struct {
	Mode    string   `json:"mode"`
	Suite   string   `json:"suite,omitempty"`
	Preset  string   `json:"preset,omitempty"`
	Config  string   `json:"config,omitempty"`
	Metrics any      `json:"metrics,omitempty"`
	Results []result `json:"results,omitempty"`
	Params  any      `json:"params,omitempty"` // the flags the run used
	Commit  string   `json:"commit"`
	Time    string   `json:"time"`
}

// result is one configuration's figures (on one suite and category, in eval).
type result struct {
	Suite    string `json:"suite,omitempty"`
	Size     string `json:"size,omitempty"` // eval -sizes: the stores' size, "stored" or a number of exchanges
	Category string `json:"category,omitempty"`
	Preset   string `json:"preset,omitempty"`
	Config   string `json:"config,omitempty"`
	Metrics  any    `json:"metrics"`
}

// writeJSON writes the report of a run to path ("" writes nothing).
func writeJSON(path, mode string, params any, results []result) error {
	if path == "" {
		return nil
	}
	r := report{Mode: mode, Params: params, Commit: commit(), Time: time.Now().UTC().Format(time.RFC3339)}
	if len(results) == 1 {
		res := results[0]
		r.Suite, r.Preset, r.Config, r.Metrics = res.Suite, res.Preset, res.Config, res.Metrics
	} else {
		r.Results = results
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// commit describes the working tree's commit, or "" outside a git repository
// or before the first commit.
func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--tags").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// startCPUProfile starts a CPU profile into path ("" does nothing) and
// returns the function that stops it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
