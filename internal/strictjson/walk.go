package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply arrays and objects may nest, encoding/json's
// bound: the walk recurses, and stops where the decoder would.
const maxDepth = 10000

// manyKeys is the key count beyond which an object's keys are kept in a
// map to find duplicates, instead of scanned.
const manyKeys = 32

// walker reads one JSON value against the schema of its Go target before
// encoding/json decodes it, so that the value has one reading: no key
// twice, no key that matches a field only under case folding, no unknown
// field, each value of its field's JSON type.
type walker struct {
	data  []byte
	pos   int
	depth int
	// keys holds the keys of the open objects that are maps or not
	// modelled, each object's contiguous, to find duplicates.
	keys [][]byte
	// locate, when not "", is the error encoding/json gave: the walk then
	// calls each UnmarshalJSON it passes to find the value that gives it.
	locate string
}

// badSyntax is the walker's finding that the input is not JSON; encoding/json
// is left to name the problem, as it always has.
type badSyntax struct{ off int }

func (e *badSyntax) Error() string { return fmt.Sprintf("invalid JSON at byte %d", e.off) }

// pathError is what is wrong with a value, and where it is.
type pathError struct {
	segs []seg // the path, innermost first as the walk unwinds
	root string
	msg  string
	// unknown is the key of an unknown field: at the top it keeps the
	// message encoding/json has always given.
	unknown []byte
	err     error // an UnmarshalJSON's own error, when the walk located it
}

// seg is a step of a path: an object's key, or an array's index when key
// is nil.
type seg struct {
	key   []byte
	index int
}

func (e *pathError) Error() string {
	p := e.path()
	if p == "" {
		if e.unknown != nil {
			return fmt.Sprintf("json: unknown field %s", quoteKey(e.unknown))
		}
		return e.msg
	}
	return p + ": " + e.msg
}

func (e *pathError) Unwrap() error { return e.err }

// path returns where the value is: the root name, keys joined by '.',
// indices as [i] (episodes[2].occurred_at).
func (e *pathError) path() string {
	var b strings.Builder
	b.WriteString(e.root)
	for i := len(e.segs) - 1; i >= 0; i-- {
		s := e.segs[i]
		switch {
		case s.key == nil:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case plainKey(s.key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(s.key)
		default: // a key that '.' would not delimit, quoted
			b.WriteByte('[')
			b.WriteString(quoteKey(s.key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// plainKey reports whether a key can stand bare in a path: letters,
// digits, '_' and '-'.
func plainKey(k []byte) bool {
	if len(k) == 0 || len(k) > maxQuoted {
		return false
	}
	for _, r := range string(k) {
		if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// maxQuoted bounds how much of a key or value a message quotes.
const maxQuoted = 64

// quoteKey quotes k for a message, clipped.
func quoteKey(k []byte) string {
	return strconv.Quote(clip(string(k)))
}

// clip cuts s to maxQuoted bytes, at a character's start, marking the cut.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// at adds a key to the path of err, if it is a pathError.
func at(err error, key []byte) error {
	if e, ok := err.(*pathError); ok {
		e.segs = append(e.segs, seg{key: bytes.Clone(key)})
	}
	return err
}

// atIndex adds an array index to the path of err, if it is a pathError.
func atIndex(err error, i int) error {
	if e, ok := err.(*pathError); ok {
		e.segs = append(e.segs, seg{index: i})
	}
	return err
}

func problem(format string, args ...any) error {
	return &pathError{msg: fmt.Sprintf(format, args...)}
}

// syntax returns the error of input that is not JSON at byte off.
func (w *walker) syntax(off int) error { return &badSyntax{off} }

func (w *walker) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value walks the value at w.pos, which n is the schema of.
func (w *walker) value(n *node) error {
	w.skipSpace()
	start := w.pos
	if start >= len(w.data) {
		return w.syntax(start)
	}
	var err error
	switch c := w.data[start]; {
	case c == '{':
		err = w.object(n)
	case c == '[':
		err = w.array(n)
	case c == '"':
		err = w.str(n)
	case c == 't':
		err = w.boolean(n, "true")
	case c == 'f':
		err = w.boolean(n, "false")
	case c == 'n':
		// null leaves any value as it is in encoding/json: no type error.
		err = w.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		err = w.number(n)
	default:
		return w.syntax(start)
	}
	if err != nil || w.locate == "" || n.unmarshaler == nil {
		return err
	}
	return w.call(n.unmarshaler, w.data[start:w.pos])
}

// call calls the UnmarshalJSON of a new value of type t on raw, the value
// as encoding/json passes it, and returns a pathError when the error is
// the one being located.
func (w *walker) call(t reflect.Type, raw []byte) error {
	u, ok := reflect.New(t).Interface().(json.Unmarshaler)
	if !ok {
		return nil
	}
	if err := u.UnmarshalJSON(raw); err != nil && err.Error() == w.locate {
		if inner, ok := err.(*pathError); ok && inner.root == "" {
			// The method decoded strictly itself (episode.Record): its
			// path goes on from this one.
			return &pathError{segs: slices.Clone(inner.segs), msg: inner.msg, unknown: inner.unknown, err: inner.err}
		}
		return &pathError{msg: err.Error(), err: err}
	}
	return nil
}

// want says what n takes, for a message.
func (n *node) want() string {
	switch n.kind {
	case stringKind:
		return "a string"
	case boolKind:
		return "true or false"
	case intKind, uintKind:
		return "an integer"
	case floatKind:
		return "a number"
	case timeKind:
		return "RFC 3339, e.g. " + timeExample
	case structKind, mapKind:
		return "an object"
	default: // sliceKind, arrayKind
		return "an array"
	}
}

// timeExample is a time as RFC 3339 writes it, for messages.
const timeExample = "2025-06-01T10:00:00+09:00"

func (n *node) wrong(got string) error {
	return problem("want %s, got %s", n.want(), got)
}

func (w *walker) object(n *node) error {
	switch n.kind {
	case structKind:
		return w.structObject(n)
	case mapKind:
		return w.mapObject(n.elem)
	case anyKind, unmarshalerKind:
		return w.mapObject(anyNode)
	}
	return n.wrong("an object")
}

// open enters the array or object at w.pos.
func (w *walker) open() error {
	if w.depth++; w.depth > maxDepth {
		return w.syntax(w.pos)
	}
	w.pos++
	return nil
}

// next reads what follows a member of an array or object: more reports a
// comma, else w.pos is past the closing end.
func (w *walker) next(end byte) (more bool, err error) {
	w.skipSpace()
	if w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ',':
			w.pos++
			return true, nil
		case end:
			w.pos++
			w.depth--
			return false, nil
		}
	}
	return false, w.syntax(w.pos)
}

// empty reports whether the array or object just opened closes at once
// with end, reading past it.
func (w *walker) empty(end byte) bool {
	w.skipSpace()
	if w.pos < len(w.data) && w.data[w.pos] == end {
		w.pos++
		w.depth--
		return true
	}
	return false
}

// key reads an object's key and the colon after it: the key unescaped.
func (w *walker) key() ([]byte, error) {
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != '"' {
		return nil, w.syntax(w.pos)
	}
	s, esc, err := w.scanString()
	if err != nil {
		return nil, err
	}
	if esc {
		s = unescape(s)
	}
	w.skipSpace()
	if w.pos >= len(w.data) || w.data[w.pos] != ':' {
		return nil, w.syntax(w.pos)
	}
	w.pos++
	return s, nil
}

// structObject walks an object into a struct: each key one of its fields,
// named exactly, once.
func (w *walker) structObject(n *node) error {
	if err := w.open(); err != nil {
		return err
	}
	if w.empty('}') {
		return nil
	}
	var seen uint64 // fields given, for a struct of up to 64
	var seenMore []bool
	if len(n.fields) > 64 {
		seenMore = make([]bool, len(n.fields))
	}
	for {
		key, err := w.key()
		if err != nil {
			return err
		}
		i := n.lookup(key)
		if i < 0 {
			if j := n.lookupFolded(key); j >= 0 {
				// ASCII quoting shows what differs: "\u212aey" for a
				// Kelvin sign that looks like "Key".
				return problem("key %s is not %s: keys are case-sensitive", strconv.QuoteToASCII(clip(string(key))), quoteKey([]byte(n.fields[j].name)))
			}
			return &pathError{msg: "unknown field " + quoteKey(key), unknown: bytes.Clone(key)}
		}
		if seenMore != nil {
			if seenMore[i] {
				return problem("duplicate key %s", quoteKey(key))
			}
			seenMore[i] = true
		} else {
			if seen&(1<<i) != 0 {
				return problem("duplicate key %s", quoteKey(key))
			}
			seen |= 1 << i
		}
		if err := w.value(n.fields[i].node); err != nil {
			return at(err, key)
		}
		if more, err := w.next('}'); !more {
			return err
		}
	}
}

// mapObject walks an object of any keys, each once, whose values elem is
// the schema of.
func (w *walker) mapObject(elem *node) error {
	if err := w.open(); err != nil {
		return err
	}
	if w.empty('}') {
		return nil
	}
	start := len(w.keys)
	var set map[string]struct{} // for an object of many keys
	for {
		key, err := w.key()
		if err != nil {
			return err
		}
		if set != nil {
			if _, dup := set[string(key)]; dup {
				return problem("duplicate key %s", quoteKey(key))
			}
			set[string(key)] = struct{}{}
		} else {
			for _, k := range w.keys[start:] {
				if bytes.Equal(k, key) {
					return problem("duplicate key %s", quoteKey(key))
				}
			}
			if w.keys = append(w.keys, key); len(w.keys)-start > manyKeys {
				set = make(map[string]struct{}, 2*manyKeys)
				for _, k := range w.keys[start:] {
					set[string(k)] = struct{}{}
				}
				w.keys = w.keys[:start]
			}
		}
		if err := w.value(elem); err != nil {
			return at(err, key)
		}
		more, err := w.next('}')
		if !more {
			w.keys = w.keys[:start]
			return err
		}
	}
}

func (w *walker) array(n *node) error {
	elem := n.elem
	switch n.kind {
	case sliceKind, arrayKind:
	case anyKind, unmarshalerKind:
		elem = anyNode
	default:
		return n.wrong("an array")
	}
	if err := w.open(); err != nil {
		return err
	}
	if w.empty(']') {
		return nil
	}
	for i := 0; ; i++ {
		if n.kind == arrayKind && i == n.n {
			// encoding/json would drop the rest unread.
			return problem("want an array of at most %d values, got more", n.n)
		}
		if err := w.value(elem); err != nil {
			return atIndex(err, i)
		}
		if more, err := w.next(']'); !more {
			return err
		}
	}
}

func (w *walker) str(n *node) error {
	s, esc, err := w.scanString()
	if err != nil {
		return err
	}
	switch n.kind {
	case stringKind, anyKind, unmarshalerKind:
		return nil
	case timeKind:
		return checkTime(s, esc)
	}
	return n.wrong("a string")
}

func (w *walker) boolean(n *node, lit string) error {
	if err := w.literal(lit); err != nil {
		return err
	}
	switch n.kind {
	case boolKind, anyKind, unmarshalerKind:
		return nil
	}
	return n.wrong(lit)
}

func (w *walker) literal(lit string) error {
	if len(w.data)-w.pos < len(lit) || string(w.data[w.pos:w.pos+len(lit)]) != lit {
		return w.syntax(w.pos)
	}
	w.pos += len(lit)
	return nil
}

func (w *walker) number(n *node) error {
	lit, integer, err := w.scanNumber()
	if err != nil {
		return err
	}
	switch n.kind {
	case anyKind, unmarshalerKind:
		return nil
	case intKind:
		if !integer {
			return n.wrong(clip(string(lit)))
		}
		lo, hi := int64(-1)<<(n.bits-1), int64(1)<<(n.bits-1)-1
		if v, ok := parseInt(lit); !ok || v < lo || v > hi {
			return problem("want an integer from %d to %d, got %s", lo, hi, clip(string(lit)))
		}
		return nil
	case uintKind:
		if !integer {
			return n.wrong(clip(string(lit)))
		}
		hi := uint64(math.MaxUint64) >> (64 - n.bits)
		if v, ok := parseUint(lit); !ok || v > hi {
			return problem("want an integer from 0 to %d, got %s", hi, clip(string(lit)))
		}
		return nil
	case floatKind:
		// As encoding/json reads it: too large is an error, too small 0.
		if _, err := strconv.ParseFloat(string(lit), n.bits); err != nil {
			return problem("want a number within float%d range, got %s", n.bits, clip(string(lit)))
		}
		return nil
	}
	return n.wrong("a number")
}

// parseInt reads an integer as JSON writes it (-?digits), false if it
// overflows an int64.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := parseUint(b)
	switch {
	case !ok || u > 1<<63 || u == 1<<63 && !neg:
		return 0, false
	case neg:
		return -int64(u), true // -1<<63 too
	}
	return int64(u), true
}

// parseUint reads digits, false if they overflow a uint64 or there is a
// sign ("-0" too, which encoding/json refuses for an unsigned type).
func parseUint(b []byte) (uint64, bool) {
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	return u, len(b) > 0
}

// stringByte marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var stringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString reads the string at w.pos: s is its content as written, esc
// whether it escapes anything. The text is UTF-8 (CheckText).
func (w *walker) scanString() (s []byte, esc bool, err error) {
	d := w.data
	i := w.pos + 1
	for {
		for i < len(d) && stringByte[d[i]] {
			i++
		}
		if i >= len(d) {
			return nil, false, w.syntax(i)
		}
		switch d[i] {
		case '"':
			s = d[w.pos+1 : i]
			w.pos = i + 1
			return s, esc, nil
		case '\\':
			esc = true
			if i+1 >= len(d) {
				return nil, false, w.syntax(i)
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d[i+2:]); !ok {
					return nil, false, w.syntax(i)
				}
				i += 6
			default:
				return nil, false, w.syntax(i)
			}
		default: // a control character
			return nil, false, w.syntax(i)
		}
	}
}

// scanNumber reads the number at w.pos: lit as written, integer when it
// has no fraction or exponent.
func (w *walker) scanNumber() (lit []byte, integer bool, err error) {
	d, i := w.data, w.pos
	digits := func() bool {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return nil, false, w.syntax(i)
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return nil, false, w.syntax(i)
		}
		integer = false
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false, w.syntax(i)
		}
		integer = false
	}
	lit, w.pos = d[w.pos:i], i
	return lit, integer, nil
}

// skip reads past the value at w.pos, checking only that it is JSON.
func (w *walker) skip() error {
	w.skipSpace()
	if w.pos >= len(w.data) {
		return w.syntax(w.pos)
	}
	var end byte
	switch c := w.data[w.pos]; {
	case c == '"':
		_, _, err := w.scanString()
		return err
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, _, err := w.scanNumber()
		return err
	case c == '[':
		end = ']'
	case c == '{':
		end = '}'
	default:
		return w.syntax(w.pos)
	}
	if err := w.open(); err != nil {
		return err
	}
	if w.empty(end) {
		return nil
	}
	for {
		if end == '}' {
			if _, err := w.key(); err != nil {
				return err
			}
		}
		if err := w.skip(); err != nil {
			return err
		}
		if more, err := w.next(end); !more {
			return err
		}
	}
}

// unescape returns the text of a JSON string's content that escapes
// something, as encoding/json reads it.
func unescape(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, _ = hex4(s[i+2:])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, s[i+1])
		}
		i += 2
	}
	return out
}
