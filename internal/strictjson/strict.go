// Package strictjson decodes JSON as omoide reads every input: one value,
// no unknown field, nothing after it, and text that is UTF-8 with no lone
// surrogate escape (encoding/json would replace either with U+FFFD, and two
// people whose names differ only there would become one). A UTF-8 byte
// order mark that opens the input, which Windows editors and PowerShell
// write, is skipped (RFC 8259 lets a parser ignore it); one anywhere else
// outside a string is an error that names it.
//
// The input must also have one reading, the same to any JSON parser, so
// that a proxy that checks a body with its own parser and forwards it
// checks what omoide reads. Before encoding/json decodes it, the input is
// walked against the Go type of its target, and refused with the path of
// the value (episodes[2].occurred_at) for: a key given twice in any object
// (parsers differ on which one counts, or refuse it); a key that matches a
// struct field only under case folding ("USER", "uſer" for "user", which
// encoding/json takes and others do not); an unknown field; a value of
// another JSON type than its field's; a time that is not RFC 3339 or whose
// offset is beyond ±23:59, which Go's time.Parse takes. A value's own
// UnmarshalJSON error is prefixed with its path too.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode decodes exactly one JSON value from r into v, rejecting
// text that is not UTF-8 (CheckText), unknown fields, trailing data and
// what else gives the value more than one reading (the package's doc),
// each error with the path of the value. A byte order mark at the start of
// r is skipped. It reads r whole, then calls DecodeBytes.
func Decode(r io.Reader, v any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return DecodeBytes(b, v)
}

// CheckText returns an error when b is not valid UTF-8 or escapes a lone
// surrogate ("\ud800" without its pair): encoding/json would replace either
// with U+FFFD, and two people whose names differ only there would become
// one. Other encodings (Shift_JIS) are refused, not converted.
func CheckText(b []byte) error {
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

// decodeJSON decodes exactly one JSON value from r, checked text, into
// v, rejecting unknown fields and trailing data. located, when not nil,
// gives the decoder's error the path of the value it comes from.
func decodeJSON(r io.Reader, v any, located func(error) error) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input: want a JSON value")
		}
		if located != nil {
			return located(err)
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

// DecodeBytes is Decode over a byte slice: a byte order mark at the start
// of b is skipped. ReadRecords of package episode gives it each line of a
// JSON Lines file, so a file that opens with one (and a line of another
// file appended to it) is read.
func DecodeBytes(b []byte, v any) error {
	return DecodeBytesAt(b, "", v)
}

// DecodeBytesAt is DecodeBytes of a value that has a name in what the
// caller reads: root opens the path of each error (root "episodes": a bare
// array of records gives "episodes[2].occurred_at: ..."). DecodeBytes is
// DecodeBytesAt with root "", where a path starts with a key or an index.
func DecodeBytesAt(b []byte, root string, v any) error {
	if err := CheckText(b); err != nil {
		return err
	}
	body, skipped := bytes.CutPrefix(b, bom)
	err := decode(body, root, v)
	if err == nil {
		return nil // se below would be allocated for nothing
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The offset counts the bytes read, the bad one included.
		if at := int(se.Offset) - 1; at >= 0 && bytes.HasPrefix(body[at:], bom) {
			if skipped {
				at += len(bom)
			}
			return fmt.Errorf("a byte order mark (U+FEFF) at byte %d: only one at the very start of the input is skipped; remove it", at)
		}
	}
	return err
}

// decode walks body against the type of v (walker), then decodes it into v
// with encoding/json.
func decode(body []byte, root string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return decodeJSON(bytes.NewReader(body), v, nil) // encoding/json names it
	}
	n := schemaOf(rv.Type())
	w := walker{data: body}
	err := w.value(n)
	if e, ok := err.(*pathError); ok {
		// Input that is not JSON is named as such first, as the decoder
		// reads the whole value before it decodes it.
		if s := (&walker{data: body}).skip(); s != nil {
			err = s
		} else {
			e.root = root
			return e
		}
	}
	if err != nil {
		// Not JSON (or nested too deeply): encoding/json's message, as
		// before; if it took what the walk did not, the walk's.
		if derr := decodeJSON(bytes.NewReader(body), v, nil); derr != nil {
			return derr
		}
		return err
	}
	return decodeJSON(bytes.NewReader(body), v, func(derr error) error {
		// An UnmarshalJSON's error: find the value that gives it.
		w := walker{data: body, locate: derr.Error()}
		if e, ok := w.value(n).(*pathError); ok && e.err != nil {
			e.root = root
			return e
		}
		return derr
	})
}

// bom is U+FEFF in UTF-8, the byte order mark some editors write first.
var bom = []byte("\ufeff")
