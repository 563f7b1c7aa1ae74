package dataset

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A suite over another file's texts holds in its folder only ids and labels,
// and reads its texts from the file its suite.json names ("texts") when it is
// loaded: RealPersonaChat's terms let labels written by a reader be committed,
// never the texts. Its folder holds, beside suite.json:
//
//   - StoresFile, a line a person: {"user": "rpc-AW", "dialogues": ["rpc:257", …]}:
//     their store is every exchange of those dialogues, all Everyday;
//   - LabelsFile, a line a turn: {"id": "rpc:5195:2", "user": "rpc-AW",
//     "relevant": [ids], "acceptable": [ids], "category": "again"}: the turn
//     is that exchange's user text at its time, its recent turns the
//     exchanges of its dialogue before it, its conversation the dialogue.
//
// An exchange's id is its dialogue's id, a colon and its position in the
// dialogue (DialogueOf). Times are read at suite.json's "offset".
const (
	StoresFile = "stores.jsonl"
	LabelsFile = "labels.jsonl"
)

// storeLine is a line of StoresFile.
type storeLine struct {
	User      string   `json:"user"`
	Dialogues []string `json:"dialogues"`
}

// labelLine is a line of LabelsFile.
type labelLine struct {
	ID         string   `json:"id"`
	User       string   `json:"user"`
	Relevant   []string `json:"relevant"`
	Acceptable []string `json:"acceptable"`
	Category   string   `json:"category"`
}

// DialogueOf returns the dialogue of an exchange id of a suite over texts,
// and the exchange's position in it: "rpc:5195:2" is position 2 of
// "rpc:5195". ok is false for an id without a numeric position.
func DialogueOf(id string) (dialogue string, pos int, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return "", 0, false
	}
	pos, err := strconv.Atoi(id[i+1:])
	if err != nil || pos < 0 {
		return "", 0, false
	}
	return id[:i], pos, true
}

// loadTexts reads a suite over the texts of f.Texts (relative to dir).
func (s *Suite) loadTexts(dir string, f suiteFile) error {
	loc := time.UTC
	if f.Offset != "" {
		t, err := time.Parse("-07:00", f.Offset)
		if err != nil {
			return fmt.Errorf("dataset: %s/%s: offset %q: want one like +09:00", dir, SuiteFile, f.Offset)
		}
		_, off := t.Zone()
		loc = time.FixedZone(f.Offset, off)
	}
	stores, err := ReadFile[storeLine](filepath.Join(dir, StoresFile))
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	labels, err := ReadFile[labelLine](filepath.Join(dir, LabelsFile))
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	owner := map[string]string{} // dialogue → the person whose store or turn it is
	stored := map[string]bool{}
	for _, st := range stores {
		for _, d := range st.Dialogues {
			stored[d] = true
			if u, ok := owner[d]; ok {
				return fmt.Errorf("dataset: %s/%s: dialogue %s is in %s's store and %s's", dir, StoresFile, d, u, st.User)
			}
			owner[d] = st.User
		}
	}
	for _, l := range labels {
		d, _, ok := DialogueOf(l.ID)
		if !ok {
			return fmt.Errorf("dataset: %s/%s: turn %q: want an exchange id, dialogue:position", dir, LabelsFile, l.ID)
		}
		if u, ok := owner[d]; ok && u != l.User {
			return fmt.Errorf("dataset: %s/%s: turn %s of %s is in %s's dialogue %s", dir, LabelsFile, l.ID, l.User, u, d)
		}
		if stored[d] {
			return fmt.Errorf("dataset: %s/%s: turn %s is in dialogue %s, which %s stores: a turn is never its own memory", dir, LabelsFile, l.ID, d, l.User)
		}
		owner[d] = l.User
	}
	texts := filepath.Join(dir, f.Texts)
	if !fileExists(texts) {
		return fmt.Errorf("dataset: suite %s reads its texts from %s (its %s's \"texts\"), which is not there: put the evaluation suites (../shared/eval) beside the repository", dir, texts, SuiteFile)
	}
	byDialogue := map[string][]Episode{}
	err = EachInFile(texts, func(e Episode) error {
		if d, _, ok := DialogueOf(e.ID); ok && owner[d] != "" {
			e.OccurredAt = e.OccurredAt.In(loc)
			e.Everyday = true
			byDialogue[d] = append(byDialogue[d], e)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	for d, eps := range byDialogue {
		slices.SortFunc(eps, func(a, b Episode) int { return cmp.Compare(position(a.ID), position(b.ID)) })
		for i, e := range eps {
			if e.User != owner[d] {
				return fmt.Errorf("dataset: %s: exchange %s is %s's, but %s names its dialogue %s's", texts, e.ID, e.User, dir, owner[d])
			}
			// RealPersonaChat has a few exchanges stamped seconds before
			// the one they follow: a dialogue's times never go back.
			if i > 0 && e.OccurredAt.Before(eps[i-1].OccurredAt) {
				eps[i].OccurredAt = eps[i-1].OccurredAt
			}
		}
	}
	for _, st := range stores {
		for _, d := range st.Dialogues {
			if len(byDialogue[d]) == 0 {
				return fmt.Errorf("dataset: %s: no exchange of dialogue %s, which %s/%s gives %s", texts, d, dir, StoresFile, st.User)
			}
			s.Episodes = append(s.Episodes, byDialogue[d]...)
		}
	}
	s.dedupe()
	for _, l := range labels {
		q, err := turnOf(l, byDialogue)
		if err != nil {
			return fmt.Errorf("dataset: %s/%s: %w", dir, LabelsFile, err)
		}
		s.Queries = append(s.Queries, q)
	}
	return nil
}

// turnOf is the query of label l: its exchange's user text, at its time,
// after the exchanges of its dialogue before it.
func turnOf(l labelLine, byDialogue map[string][]Episode) (Query, error) {
	d, pos, _ := DialogueOf(l.ID)
	eps := byDialogue[d]
	i := slices.IndexFunc(eps, func(e Episode) bool { return e.ID == l.ID })
	if i < 0 {
		return Query{}, fmt.Errorf("turn %s: no such exchange in the texts", l.ID)
	}
	q := Query{ID: l.ID, User: l.User, Text: eps[i].UserText, Now: eps[i].OccurredAt, Context: []Message{},
		Relevant: l.Relevant, Acceptable: l.Acceptable, Category: l.Category, Conversation: d}
	if q.Relevant == nil {
		q.Relevant = []string{}
	}
	for _, e := range eps {
		if position(e.ID) < pos {
			q.Context = append(q.Context, Message{Role: "user", Content: e.UserText}, Message{Role: "assistant", Content: e.ReplyText})
		}
	}
	return q, nil
}

// position is the position of an exchange id in its dialogue (-1 for none).
func position(id string) int {
	if _, p, ok := DialogueOf(id); ok {
		return p
	}
	return -1
}
