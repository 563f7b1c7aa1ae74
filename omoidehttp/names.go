package omoidehttp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EncodeUser returns the one wire form of a person's name in the UserHeader:
// every byte that is '%', a control byte or not ASCII, and a space at either
// end (which header parsing would drop), percent-encoded as %XX (upper-case
// hex), every other byte as it is. An ASCII name without '%' is its own
// wire form ("mika"; "50%" is "50%25"); はるか is
// "%E3%81%AF%E3%82%8B%E3%81%8B", which any client can send (Node's fetch and
// Python's urllib refuse a header that is not Latin-1), so that header, sent
// as it is, names はるか: the person literally named "%E3%81%AF…" is
// "%25E3%2581%25AF…". The proxy hashes the header as sent, so Owner hashes
// this form.
func EncodeUser(name string) string {
	n := 0
	for i := 0; i < len(name); i++ {
		if headerEscaped(name, i) {
			n++
		}
	}
	if n == 0 {
		return name
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(name) + 2*n)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if headerEscaped(name, i) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// headerEscaped reports whether the wire form encodes name[i]: a space at
// either end too, so that a name the rule refuses (" mika") reaches the
// server as itself and is refused, not trimmed into mika's.
func headerEscaped(name string, i int) bool {
	c := name[i]
	return c == '%' || c < 0x20 || c >= 0x7f || c == ' ' && (i == 0 || i == len(name)-1)
}

// DecodeUser returns the name whose wire form (EncodeUser) is v, refusing a
// value in any other form (raw UTF-8, lower-case hex, %41 for A, a stray
// %): two spellings of one name would hash to two nodes at the proxy.
func DecodeUser(v string) (string, error) {
	if !strings.Contains(v, "%") {
		if i := strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r >= 0x7f }); i >= 0 {
			if !utf8.ValidString(v) {
				// Not UTF-8 (Latin-1, Shift_JIS): its encoding would name no one.
				return "", fmt.Errorf("the %s header holds byte %#x at %d and is not UTF-8: send the name's UTF-8 bytes percent-encoded (はるか is %s)", UserHeader, v[i], i, EncodeUser("はるか"))
			}
			return "", fmt.Errorf("the %s header holds byte %#x at %d: send the name percent-encoded as UTF-8 (%q)", UserHeader, v[i], i, EncodeUser(v))
		}
		if enc := EncodeUser(v); enc != v {
			return "", fmt.Errorf("the %s header %q is not in its one wire form: send %q (a space at either end is encoded)", UserHeader, v, enc)
		}
		return v, nil
	}
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b = append(b, v[i])
			continue
		}
		if i+2 >= len(v) || unhex(v[i+1]) < 0 || unhex(v[i+2]) < 0 {
			return "", fmt.Errorf("the %s header %q has a %% not followed by two hex digits at byte %d (a %% in a name is sent as %%25)", UserHeader, v, i)
		}
		b = append(b, byte(unhex(v[i+1])<<4|unhex(v[i+2])))
		i += 2
	}
	name := string(b)
	if enc := EncodeUser(name); enc != v {
		return "", fmt.Errorf("the %s header %q is not in its one wire form: send %q (only %%, control and non-ASCII bytes are encoded, in upper-case hex)", UserHeader, v, enc)
	}
	return name, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
