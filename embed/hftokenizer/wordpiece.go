package hftokenizer

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// wordPiece is the crate's WordPiece model: greedy longest-match-first,
// continuation pieces carry a prefix, a word with any unmatched rest or more
// than maxChars chars becomes the unk token.
type wordPiece struct {
	vocab    map[string]int
	unk      string
	unkID    int
	prefix   string
	maxChars int
	maxID    int
}

func newWordPiece(vocab map[string]int, unk, prefix string, maxChars int) (*wordPiece, error) {
	unkID, ok := vocab[unk]
	if !ok {
		return nil, fmt.Errorf("WordPiece unk_token %q is not in the vocab", unk)
	}
	if maxChars < 0 {
		return nil, errors.New("WordPiece max_input_chars_per_word is negative")
	}
	m := &wordPiece{vocab: vocab, unk: unk, unkID: unkID, prefix: prefix, maxChars: maxChars, maxID: -1}
	for _, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("WordPiece vocab has a negative id %d", id)
		}
		m.maxID = max(m.maxID, id)
	}
	return m, nil
}

func (m *wordPiece) size() int { return len(m.vocab) }

func (m *wordPiece) maxTokenID() int { return m.maxID }

func (m *wordPiece) vocabIDs() map[string]int { return m.vocab }

func (m *wordPiece) unkToken() (string, int, bool) { return m.unk, m.unkID, true }

func (m *wordPiece) tokenID(p string) (int, bool) {
	id, ok := m.vocab[p]
	return id, ok
}

func (m *wordPiece) tokenize(s string, dst []int) []int {
	if utf8.RuneCountInString(s) > m.maxChars {
		return append(dst, m.unkID)
	}
	start0 := len(dst)
	buf := make([]byte, 0, len(m.prefix)+len(s))
	for start := 0; start < len(s); {
		end := len(s)
		found := -1
		for start < end {
			buf = buf[:0]
			if start > 0 {
				buf = append(buf, m.prefix...)
			}
			buf = append(buf, s[start:end]...)
			if id, ok := m.vocab[string(buf)]; ok {
				found = id
				break
			}
			_, w := utf8.DecodeLastRuneInString(s[start:end])
			end -= w
		}
		if found < 0 {
			return append(dst[:start0], m.unkID)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}
