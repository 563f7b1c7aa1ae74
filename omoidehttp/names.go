package omoidehttp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EncodeUser returns the one wire form of a person's name in the UserHeader:
// what JavaScript's encodeURIComponent writes of it (Python: quote(name,
// safe="!*'()")), every byte but A–Z a–z 0–9 and - _ . ! ~ * ' ( )
// percent-encoded as %XX (upper-case hex) of its UTF-8. "mika" is its own
// wire form; "line:U123" is "line%3AU123", "a b" "a%20b", "50%" "50%25";
// はるか is "%E3%81%AF%E3%82%8B%E3%81%8B", which any client can send (Node's
// fetch and Python's urllib refuse a header that is not Latin-1), so that
// the commonest client code is right. The proxy hashes the header as sent,
// so Owner hashes this form.
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

// headerEscaped reports whether the wire form encodes name[i]: every byte
// encodeURIComponent encodes, all but its unreserved A–Z a–z 0–9 - _ . ! ~
// * ' ( ). A space is encoded too, so a name the rule refuses (" mika")
// reaches the server as itself and is refused, not trimmed into mika's.
func headerEscaped(name string, i int) bool {
	switch c := name[i]; {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		return false
	default:
		return !strings.ContainsRune("-_.!~*'()", rune(c))
	}
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
			return "", fmt.Errorf("the %s header %q is not in its one wire form: send %q, what encodeURIComponent writes (every byte but A-Z a-z 0-9 - _ . ! ~ * ' ( ) percent-encoded)", UserHeader, v, enc)
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
		return "", fmt.Errorf("the %s header %q is not in its one wire form: send %q, what encodeURIComponent writes (every byte but A-Z a-z 0-9 - _ . ! ~ * ' ( ) percent-encoded, in upper-case hex)", UserHeader, v, enc)
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
