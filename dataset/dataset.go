// Package dataset reads episodes and queries in the JSON Lines format of the
// evaluation suites (docs/quality.md), of the demo conversations (package
// demo) and of testdata.
package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// Episode is one line of episodes.jsonl.
type Episode struct {
	ID         string    `json:"id"`
	User       string    `json:"user"`
	UserText   string    `json:"user_text"`
	ReplyText  string    `json:"reply_text"`
	OccurredAt time.Time `json:"occurred_at"`
	Source     string    `json:"source,omitempty"`
	// Everyday reports that the episode is the person's ordinary chat
	// (a line of the suite's everyday.jsonl, or of a suite over real
	// chat), not one of their chosen memories: what a store cut to
	// another size leaves out first (Suite.AtSize).
	Everyday bool `json:"-"`
}

// Message is one turn of a query's context.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Query is one line of queries.jsonl.
type Query struct {
	ID       string    `json:"id"`
	User     string    `json:"user"`
	Text     string    `json:"text"`
	Context  []Message `json:"context"`
	Now      time.Time `json:"now"`
	Relevant []string  `json:"relevant"`
	// Acceptable are episodes that may be injected beside the relevant
	// ones (or, when none is relevant, instead of nothing) without a
	// person minding; not needed, so no recall counts them.
	Acceptable []string `json:"acceptable,omitempty"`
	Category   string   `json:"category"`
	// Conversation names the conversation the query is a turn of: its
	// Context is that conversation's earlier turns. Empty: a turn alone.
	Conversation string `json:"conversation,omitempty"`
	// Ordinal is the query's 1-based position among its suite's queries
	// (set by LoadSuite): query ids need not be unique (sui-ja-dev gives a
	// context's every written reply the same id).
	Ordinal int `json:"-"`
}

// Request is the retrieval request of q. Its context is always non-nil, so
// the stored episodes never stand in for it, and when its now is written
// with an offset other than UTC's, its days are that offset's
// (2026-11-24T20:10:00+09:00: a Japanese person's 昨日), as a companion
// knows its person's time zone; a now in UTC leaves the retriever's
// Location to say.
func (q Query) Request() retriever.Request {
	recent := make([]retriever.Message, len(q.Context))
	for i, m := range q.Context {
		recent[i] = retriever.Message{Role: m.Role, Content: m.Content}
	}
	req := retriever.Request{User: q.User, Text: q.Text, Recent: recent, Now: q.Now}
	if _, off := q.Now.Zone(); off != 0 {
		req.Location = q.Now.Location()
	}
	return req
}

// Episode converts a dataset episode into a store episode whose ExternalID is
// the dataset id.
func (e Episode) Episode() episode.Episode {
	return episode.Episode{User: e.User, ExternalID: e.ID, UserText: e.UserText, ReplyText: e.ReplyText,
		OccurredAt: e.OccurredAt, Source: e.Source}
}

// Read decodes one JSON value per non-blank line of r, calling fn for each. It
// stops at the first error, which names the line.
func Read[T any](r io.Reader, fn func(T) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if err := fn(v); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	return sc.Err()
}

// ReadFile reads every value of a JSON Lines file (gzip-compressed when its
// name ends in .gz).
func ReadFile[T any](path string) ([]T, error) {
	var out []T
	err := EachInFile(path, func(v T) error { out = append(out, v); return nil })
	return out, err
}

// EachInFile calls fn for every value of a JSON Lines file (gzip-compressed
// when its name ends in .gz).
func EachInFile[T any](path string, fn func(T) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	if err := Read(r, fn); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Suite is a folder holding episodes.jsonl (or episodes.jsonl.gz) and,
// optionally, queries.jsonl, everyday.jsonl and suite.json; or a suite over
// the texts of another file, whose folder holds only ids and labels
// (StoresFile, LabelsFile).
type Suite struct {
	Name     string
	Episodes []Episode
	Queries  []Query
	// Duplicates counts the episodes left out for a (user, id) an earlier
	// line holds: a store keeps one episode per (user, external id), the
	// first, and refuses another content under it (episode.ErrConflict).
	Duplicates int
	// Judged are the people of the suite's judged half, from its
	// suite.json: a fit reads only the others' queries, and figures of
	// the judged half are figures of people the fit never saw. Empty: the
	// suite names no halves.
	Judged []string
	// Grow says what a person's store grows with beyond their own chat
	// (AtSize's pad): GrowPeople (the default) or GrowHaystack.
	Grow string
}

// The files of a suite's folder beside episodes.jsonl and queries.jsonl.
const (
	// SuiteFile describes the suite: its name, its judged half, what its
	// stores grow with, and for a suite over another file's texts, which.
	SuiteFile = "suite.json"
	// EverydayFile holds the people's everyday chat around their chosen
	// memories, in the episodes' format: their Everyday episodes.
	EverydayFile = "everyday.jsonl"
)

// What a person's store grows with beyond their own chat (Suite.Grow).
const (
	// GrowPeople grows a store with the everyday chat of the suite's other
	// people (Suite.Padding).
	GrowPeople = "people"
	// GrowHaystack grows it with real chat of the haystack of its language
	// (for Japanese, RealPersonaChat's; ReadHaystack).
	GrowHaystack = "haystack"
)

// suiteFile is the JSON of SuiteFile.
type suiteFile struct {
	Name   string   `json:"name"`   // the suite's name; default the folder's
	Judged []string `json:"judged"` // the people of the judged half
	Grow   string   `json:"grow"`   // GrowPeople (default) or GrowHaystack
	// Texts, Offset: a suite over another file's texts (StoresFile, LabelsFile).
	Texts  string `json:"texts"`  // that file, relative to the suite's folder
	Offset string `json:"offset"` // the UTC offset its people live at, "+09:00"; default UTC
}

// InJudged reports whether q is in the suite's judged half (false when the
// suite names no halves).
func (s *Suite) InJudged(q Query) bool { return slices.Contains(s.Judged, q.User) }

// LoadSuite reads the suite in dir: its episodes (everyday.jsonl's after
// episodes.jsonl's, marked Everyday), queries and suite.json, or, when its
// suite.json names texts, the suite over them (StoresFile, LabelsFile).
func LoadSuite(dir string) (*Suite, error) {
	s := &Suite{Name: baseName(dir), Grow: GrowPeople}
	f, err := readSuiteFile(dir)
	if err != nil {
		return nil, err
	}
	if f.Name != "" {
		s.Name = f.Name
	}
	s.Judged = f.Judged
	if f.Grow != "" {
		s.Grow = f.Grow
	}
	if f.Texts != "" {
		err = s.loadTexts(dir, f)
	} else {
		err = s.loadFiles(dir)
	}
	if err != nil {
		return nil, err
	}
	people := map[string]bool{}
	for i := range s.Queries {
		s.Queries[i].Ordinal = i + 1
		people[s.Queries[i].User] = true
	}
	for _, p := range s.Judged {
		if !people[p] {
			return nil, fmt.Errorf("dataset: %s/%s: judged person %q has no query", dir, SuiteFile, p)
		}
	}
	return s, nil
}

// readSuiteFile reads dir's suite.json, strictly; none is an empty one.
func readSuiteFile(dir string) (suiteFile, error) {
	var f suiteFile
	b, err := os.ReadFile(filepath.Join(dir, SuiteFile))
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("dataset: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("dataset: %s/%s: %w", dir, SuiteFile, err)
	}
	if f.Grow != "" && f.Grow != GrowPeople && f.Grow != GrowHaystack {
		return f, fmt.Errorf("dataset: %s/%s: grow %q: want %q or %q", dir, SuiteFile, f.Grow, GrowPeople, GrowHaystack)
	}
	return f, nil
}

// loadFiles reads the episodes, everyday chat and queries of a suite's folder.
func (s *Suite) loadFiles(dir string) error {
	path := dir + "/episodes.jsonl"
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		path += ".gz"
	}
	var err error
	if s.Episodes, err = ReadFile[Episode](path); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if everyday := filepath.Join(dir, EverydayFile); fileExists(everyday) {
		eps, err := ReadFile[Episode](everyday)
		if err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		for i := range eps {
			eps[i].Everyday = true
		}
		s.Episodes = append(s.Episodes, eps...)
	}
	s.dedupe()
	if qpath := dir + "/queries.jsonl"; fileExists(qpath) {
		if s.Queries, err = ReadFile[Query](qpath); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
	}
	return nil
}

// dedupe leaves out the episodes whose (user, id) an earlier one holds,
// counting them in Duplicates.
func (s *Suite) dedupe() {
	seen := make(map[[2]string]bool, len(s.Episodes))
	s.Episodes = slices.DeleteFunc(s.Episodes, func(e Episode) bool {
		k := [2]string{e.User, e.ID}
		if seen[k] {
			s.Duplicates++
			return true
		}
		seen[k] = true
		return false
	})
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func baseName(dir string) string {
	dir = strings.TrimRight(dir, "/")
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		return dir[i+1:]
	}
	return dir
}
