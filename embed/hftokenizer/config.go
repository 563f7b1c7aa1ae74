package hftokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The tokenizer.json layout, read field by field so that every component
// type is checked against what this package implements.

type fileJSON struct {
	Version      *string          `json:"version"`
	Truncation   *truncationJSON  `json:"truncation"`
	AddedTokens  []addedTokenJSON `json:"added_tokens"`
	Normalizer   json.RawMessage  `json:"normalizer"`
	PreTokenizer json.RawMessage  `json:"pre_tokenizer"`
	Model        json.RawMessage  `json:"model"`
	// padding, post_processor and decoder do not change the ids of Encode.
}

type truncationJSON struct {
	MaxLength int    `json:"max_length"`
	Direction string `json:"direction"`
}

type addedTokenJSON struct {
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

type typed struct {
	Type string `json:"type"`
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// typeOf reads the "type" of a normalizer or pre-tokenizer.
func typeOf(raw json.RawMessage, what string) (string, error) {
	var t typed
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if t.Type == "" {
		return "", fmt.Errorf("%s has no \"type\"", what)
	}
	return t.Type, nil
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	kind, err := typeOf(raw, "normalizer")
	if err != nil {
		return nil, err
	}
	switch kind {
	case "Sequence":
		var v struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Sequence: %w", err)
		}
		seq := make(sequenceNormalizer, 0, len(v.Normalizers))
		for _, r := range v.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		}
		return seq, nil
	case "NFC":
		return unicodeNormalizer{compose: true}, nil
	case "NFD":
		return unicodeNormalizer{}, nil
	case "NFKC":
		return unicodeNormalizer{compose: true, compat: true}, nil
	case "NFKD":
		return unicodeNormalizer{compat: true}, nil
	case "Lowercase":
		return lowercaseNormalizer{}, nil
	case "StripAccents":
		return stripAccentsNormalizer{}, nil
	case "Nmt":
		return nmtNormalizer{}, nil
	case "Strip":
		var v struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Strip: %w", err)
		}
		return stripNormalizer{v.Left, v.Right}, nil
	case "Prepend":
		var v struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Prepend: %w", err)
		}
		return prependNormalizer{v.Prepend}, nil
	case "Replace":
		var v struct {
			Pattern json.RawMessage `json:"pattern"`
			Content string          `json:"content"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		p, err := parsePattern(v.Pattern)
		if err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		return replaceNormalizer{p, v.Content}, nil
	case "BertNormalizer":
		v := struct {
			CleanText    bool  `json:"clean_text"`
			ChineseChars bool  `json:"handle_chinese_chars"`
			StripAccents *bool `json:"strip_accents"`
			Lowercase    bool  `json:"lowercase"`
		}{CleanText: true, ChineseChars: true, Lowercase: true}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer BertNormalizer: %w", err)
		}
		strip := v.Lowercase // strip_accents null follows lowercase
		if v.StripAccents != nil {
			strip = *v.StripAccents
		}
		return bertNormalizer{v.CleanText, v.ChineseChars, strip, v.Lowercase}, nil
	case "Precompiled":
		var v struct {
			Charsmap *string `json:"precompiled_charsmap"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Precompiled: %w", err)
		}
		if v.Charsmap == nil {
			return nil, errors.New("normalizer Precompiled has no precompiled_charsmap")
		}
		p, err := parsePrecompiled(*v.Charsmap)
		if err != nil {
			return nil, fmt.Errorf("normalizer Precompiled: %w", err)
		}
		return precompiledNormalizer{p}, nil
	}
	return nil, fmt.Errorf("normalizer type %q is not supported", kind)
}

// parsePattern reads {"String": s} or {"Regex": r}. Regexes are accepted
// only when Go's RE2 matches exactly what the crate's Oniguruma does: plain
// literals, bracket classes, groups, alternation and counted repeats, with no
// escapes or classes whose meaning differs (\w \s \d \b \p, anchors, flags).
func parsePattern(raw json.RawMessage) (pattern, error) {
	var v struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("pattern: %w", err)
	}
	switch {
	case v.String != nil:
		if *v.String == "" {
			return nil, errors.New("empty String pattern is not supported")
		}
		return stringPattern(*v.String), nil
	case v.Regex != nil:
		re, err := compileSafeRegex(*v.Regex)
		if err != nil {
			return nil, err
		}
		return regexPattern{re}, nil
	}
	return nil, errors.New("pattern is neither String nor Regex")
}

func compileSafeRegex(expr string) (*regexp.Regexp, error) {
	unsupported := fmt.Errorf("Regex pattern %q is not supported", expr)
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; c {
		case '\\':
			if i+1 >= len(expr) {
				return nil, unsupported
			}
			next := expr[i+1]
			if (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9') {
				if !strings.ContainsRune("tnrfv", rune(next)) {
					return nil, unsupported
				}
			}
			i++
		case '^', '$':
			return nil, unsupported
		case '(':
			if i+1 < len(expr) && expr[i+1] == '?' && !strings.HasPrefix(expr[i:], "(?:") {
				return nil, unsupported
			}
		case '[':
			if i+1 < len(expr) && expr[i+1] == ':' {
				return nil, unsupported
			}
		case '{':
			if i+1 < len(expr) && expr[i+1] == ',' {
				return nil, unsupported
			}
		}
	}
	if strings.Contains(expr, "[[") || strings.Contains(expr, "&&") {
		return nil, unsupported
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("Regex pattern %q: %w", expr, err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("Regex pattern %q matches the empty string, which is not supported", expr)
	}
	return re, nil
}

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	kind, err := typeOf(raw, "pre_tokenizer")
	if err != nil {
		return nil, err
	}
	switch kind {
	case "Sequence":
		var v struct {
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Sequence: %w", err)
		}
		seq := make(sequencePreTokenizer, 0, len(v.PreTokenizers))
		for _, r := range v.PreTokenizers {
			p, err := parsePreTokenizer(r)
			if err != nil {
				return nil, err
			}
			seq = append(seq, p)
		}
		return seq, nil
	case "WhitespaceSplit":
		return runeSplitter{isRustWhitespace, splitRemoved}, nil
	case "Whitespace":
		return whitespacePreTokenizer{}, nil
	case "BertPreTokenizer":
		return bertPreTokenizer{}, nil
	case "Punctuation":
		v := struct {
			Behavior string `json:"behavior"`
		}{Behavior: "Isolated"}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Punctuation: %w", err)
		}
		b, err := parseBehavior(v.Behavior)
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Punctuation: %w", err)
		}
		return runeSplitter{isPunctuation, b}, nil
	case "Digits":
		var v struct {
			Individual bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Digits: %w", err)
		}
		if v.Individual {
			return runeSplitter{isNumeric, splitIsolated}, nil
		}
		return runeSplitter{isNumeric, splitContiguous}, nil
	case "Metaspace":
		var v struct {
			Replacement    *string `json:"replacement"`
			AddPrefixSpace *bool   `json:"add_prefix_space"`
			PrependScheme  *string `json:"prepend_scheme"`
			Split          *bool   `json:"split"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: %w", err)
		}
		if v.Replacement == nil || utf8.RuneCountInString(*v.Replacement) != 1 {
			return nil, errors.New("pre_tokenizer Metaspace needs a one-char replacement")
		}
		m := metaspacePreTokenizer{split: true}
		m.replacement, _ = utf8.DecodeRuneInString(*v.Replacement)
		scheme := "always"
		if v.PrependScheme != nil {
			scheme = *v.PrependScheme
		}
		switch scheme {
		case "always":
			m.prepend = prependAlways
		case "first":
			m.prepend = prependFirst
		case "never":
			m.prepend = prependNever
		default:
			return nil, fmt.Errorf("pre_tokenizer Metaspace prepend_scheme %q is not supported", scheme)
		}
		if v.AddPrefixSpace != nil && !*v.AddPrefixSpace {
			if m.prepend != prependNever {
				return nil, errors.New("pre_tokenizer Metaspace: add_prefix_space does not match prepend_scheme")
			}
		}
		if v.Split != nil {
			m.split = *v.Split
		}
		return m, nil
	}
	return nil, fmt.Errorf("pre_tokenizer type %q is not supported", kind)
}

func parseBehavior(s string) (splitBehavior, error) {
	switch s {
	case "Removed":
		return splitRemoved, nil
	case "Isolated":
		return splitIsolated, nil
	case "MergedWithPrevious":
		return splitMergedWithPrevious, nil
	case "MergedWithNext":
		return splitMergedWithNext, nil
	case "Contiguous":
		return splitContiguous, nil
	}
	return 0, fmt.Errorf("split behavior %q is not supported", s)
}

func parseModel(raw json.RawMessage) (model, error) {
	if isNull(raw) {
		return nil, errors.New("model is missing")
	}
	// One pass over the (possibly large) model; the vocab is read below by type.
	var v struct {
		Type         string          `json:"type"`
		UnkID        *int            `json:"unk_id"`
		ByteFallback bool            `json:"byte_fallback"`
		UnkToken     *string         `json:"unk_token"`
		Prefix       *string         `json:"continuing_subword_prefix"`
		MaxChars     *int            `json:"max_input_chars_per_word"`
		Vocab        json.RawMessage `json:"vocab"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	switch v.Type {
	case "":
		return nil, errors.New(`model has no "type"`)
	case "Unigram":
		pieces, scores, err := scanUnigramVocab(v.Vocab)
		if err != nil {
			return nil, err
		}
		return newUnigram(pieces, scores, v.UnkID, v.ByteFallback)
	case "WordPiece":
		var vocab map[string]int
		if err := json.Unmarshal(v.Vocab, &vocab); err != nil {
			return nil, fmt.Errorf("WordPiece vocab: %w", err)
		}
		unk, prefix, maxChars := "[UNK]", "##", 100
		if v.UnkToken != nil {
			unk = *v.UnkToken
		}
		if v.Prefix != nil {
			prefix = *v.Prefix
		}
		if v.MaxChars != nil {
			maxChars = *v.MaxChars
		}
		return newWordPiece(vocab, unk, prefix, maxChars)
	}
	return nil, fmt.Errorf("model type %q is not supported", v.Type)
}

// unigramEntryError is a malformed vocab entry, made only when one is.
type unigramEntryError int

func (n unigramEntryError) Error() string {
	return fmt.Sprintf("Unigram vocab entry %d is not a [piece, score] pair", int(n))
}

// scanUnigramVocab reads the Unigram vocab, a JSON array of [piece, score]
// pairs, keeping each score's text for parseSerdeFloat. The document has
// already been validated as JSON.
func scanUnigramVocab(raw []byte) ([]string, []float64, error) {
	i := 0
	skip := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
			i++
		}
	}
	expect := func(c byte) bool {
		skip()
		if i < len(raw) && raw[i] == c {
			i++
			return true
		}
		return false
	}
	if isNull(raw) {
		return nil, nil, errors.New("Unigram model has no vocab")
	}
	if !expect('[') {
		return nil, nil, errors.New("Unigram vocab is not an array")
	}
	var pieces []string
	var scores []float64
	if expect(']') {
		return pieces, scores, nil
	}
	for n := 0; ; n++ {
		bad := unigramEntryError(n)
		if !expect('[') {
			return nil, nil, bad
		}
		skip()
		if i >= len(raw) || raw[i] != '"' {
			return nil, nil, bad
		}
		start, escaped := i, false
		for i++; i < len(raw) && raw[i] != '"'; i++ {
			if raw[i] == '\\' {
				escaped = true
				i++
			}
		}
		i++
		var piece string
		if escaped {
			if err := json.Unmarshal(raw[start:min(i, len(raw))], &piece); err != nil {
				return nil, nil, fmt.Errorf("Unigram vocab entry %d: %w", n, err)
			}
		} else {
			piece = string(raw[start+1 : i-1])
		}
		if !expect(',') {
			return nil, nil, bad
		}
		skip()
		numStart := i
		for i < len(raw) && !strings.ContainsRune(" \t\n\r,]", rune(raw[i])) {
			i++
		}
		score, err := parseSerdeFloat(string(raw[numStart:i]))
		if err != nil {
			return nil, nil, fmt.Errorf("Unigram vocab entry %d: %w", n, err)
		}
		if !expect(']') {
			return nil, nil, bad
		}
		pieces = append(pieces, piece)
		scores = append(scores, score)
		if expect(']') {
			return pieces, scores, nil
		}
		if !expect(',') {
			return nil, nil, fmt.Errorf("Unigram vocab: malformed after entry %d", n)
		}
	}
}
