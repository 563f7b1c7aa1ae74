package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// checkEpisode validates e as the store will, without changing it.
func checkEpisode(e episode.Episode) error {
	return e.Normalize() // e is a copy: the defaults it fills stay here
}

// messageInput is one recent turn: {"role": "user"|"assistant", "content": "..."}.
type messageInput struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messages validates ms and converts them; a nil ms stays nil (the
// retriever then uses the person's last stored episodes as the context).
func messages(ms []messageInput) ([]retriever.Message, error) {
	if ms == nil {
		return nil, nil
	}
	out := make([]retriever.Message, len(ms))
	for i, m := range ms {
		switch m.Role {
		case "user", "assistant", "system": // the retriever ignores system messages
		default:
			return nil, fmt.Errorf("recent[%d]: role %q: want \"user\" or \"assistant\"", i, m.Role)
		}
		out[i] = retriever.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}

// decodeStrict decodes exactly one JSON value from r into v, rejecting
// text that is not UTF-8 (checkJSONText), unknown fields and trailing data.
func decodeStrict(r io.Reader, v any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return decodeStrictBytes(b, v)
}

// checkJSONText returns an error when b is not valid UTF-8 or escapes a lone
// surrogate ("\ud800" without its pair): encoding/json would replace either
// with U+FFFD, and two people whose names differ only there would become
// one. Other encodings (Shift_JIS) are refused, not converted.
func checkJSONText(b []byte) error {
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return fmt.Errorf("not valid UTF-8 at byte %d (send UTF-8: other encodings such as Shift_JIS are refused, not converted)", off)
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character, "\\" too
			continue
		}
		r1, ok := hex4(b[i+2:])
		if !ok {
			continue // the decoder names it
		}
		switch {
		case utf16.IsSurrogate(r1) && r1 < 0xdc00:
			if len(b) >= i+12 && b[i+6] == '\\' && b[i+7] == 'u' {
				if r2, ok := hex4(b[i+8:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					i += 11
					continue
				}
			}
			return fmt.Errorf("lone surrogate escape %s at byte %d (not a character)", b[i:i+6], i)
		case utf16.IsSurrogate(r1):
			return fmt.Errorf("lone surrogate escape %s at byte %d (not a character)", b[i:i+6], i)
		}
		i += 5
	}
	return nil
}

// hex4 reads the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// decodeStrictJSON decodes exactly one JSON value from r, checked text, into
// v, rejecting unknown fields and trailing data.
func decodeStrictJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input: want a JSON value")
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// decodeStrictBytes is decodeStrict over a byte slice.
func decodeStrictBytes(b []byte, v any) error {
	if err := checkJSONText(b); err != nil {
		return err
	}
	return decodeStrictJSON(bytes.NewReader(b), v)
}

// unsearched counts the episodes f leaves out of every search.
func unsearched(f retriever.Filter, eps []episode.Episode) int {
	n := 0
	for _, e := range eps {
		if !f.Admits(cmp.Or(e.Kind, episode.KindEpisode), e.State, e.Sensitivity) {
			n++
		}
	}
	return n
}
