package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testKind mirrors episode.Kind: a name or a number, its own UnmarshalJSON.
type testKind int

var errTestKind = errors.New("want a number or one of fact=2, loop=7")

func (k *testKind) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		n, err := strconv.Atoi(string(b))
		if err != nil {
			return fmt.Errorf("kind %s: want an integer or a name", b)
		}
		*k = testKind(n)
		return nil
	}
	switch s {
	case "fact":
		*k = 2
	case "loop":
		*k = 7
	default:
		return fmt.Errorf("kind %q: %w", s, errTestKind)
	}
	return nil
}

// testRecord mirrors episode.Record: its UnmarshalJSON decodes an inner
// struct that embeds plain and overrides occurred_at, and refuses the zero
// time.
type testRecord struct {
	ID         string    `json:"id"`
	User       string    `json:"user"`
	UserText   string    `json:"user_text"`
	OccurredAt time.Time `json:"occurred_at,omitzero"`
	Kind       testKind  `json:"kind"`
	Count      int8      `json:"count"`
	Tags       []string  `json:"tags"`
}

func (r *testRecord) UnmarshalJSON(b []byte) error {
	type plain testRecord
	var v struct {
		plain
		OccurredAt *time.Time `json:"occurred_at"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	*r = testRecord(v.plain)
	if v.OccurredAt != nil {
		if v.OccurredAt.IsZero() {
			return errors.New("occurred_at is the zero time")
		}
		r.OccurredAt = *v.OccurredAt
	}
	return nil
}

type testInner struct {
	Name  string `json:"name"`
	Score int    `json:"score"`
}

type testEmbedded struct {
	Emb  string    `json:"emb"`
	Deep testInner `json:"deep"`
}

// EmbeddedP is exported: encoding/json cannot set an embedded pointer to
// an unexported struct.
type EmbeddedP struct {
	EmbP int `json:"emb_p"`
}

// testBody holds every shape the walk models, and some it leaves to
// encoding/json.
type testBody struct {
	User    string                `json:"user"`
	Key     string                `json:"key"`
	N       int                   `json:"n"`
	U       uint8                 `json:"u"`
	F       float32               `json:"f"`
	B       bool                  `json:"b"`
	At      time.Time             `json:"at"`
	AtP     *time.Time            `json:"at_p"`
	Inner   testInner             `json:"inner"`
	InnerP  *testInner            `json:"inner_p"`
	List    []testInner           `json:"list"`
	Arr     [2]int                `json:"arr"`
	ByName  map[string]testInner  `json:"by_name"`
	ByNameP map[string]*testInner `json:"by_name_p"`
	Any     any                   `json:"any"`
	Raw     json.RawMessage       `json:"raw"`
	Records []testRecord          `json:"records"`
	testEmbedded
	*EmbeddedP
	Quoted   int         `json:"quoted,string"`
	Num      json.Number `json:"num"`
	Bytes    []byte      `json:"bytes"`
	Untagged string
	Skip     string `json:"-"`
	hidden   string //nolint:unused // an unexported field is no JSON field
}

// precA, precB, precC and precTop exercise encoding/json's precedence of
// promoted fields.
type precA struct {
	Name string `json:"name"` // key "name"
	X    int    // loses to precB's tagged X
	Z    string `json:"z"` // loses to precTop's shallower z
}

type precB struct {
	Name string // key "Name", another key than precA's "name"
	X    int    `json:"X"`
	Y    int    // ambiguous with precC's Y: dropped
}

type precC struct {
	Y int
}

type precTop struct {
	precA
	precB
	precC
	Z int `json:"z"`
}

// TestWalkRefuses: each rule, at the top, inside an array of structs, a
// nested struct, a map value, an embedded struct and a pointer, and
// through a struct that decodes itself, with the exact message.
func TestWalkRefuses(t *testing.T) {
	const rfc = "want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "
	cases := []struct{ name, in, err string }{
		// 1. A key twice, whatever the target.
		{"dup top", `{"user":"j","user":"k"}`, `duplicate key "user"`},
		{"dup escaped", `{"user":"j","\u0075ser":"k"}`, `duplicate key "user"`},
		{"dup in array of structs", `{"list":[{"name":"a"},{"name":"a","name":"b"}]}`, `list[1]: duplicate key "name"`},
		{"dup nested struct", `{"inner":{"score":1,"score":2}}`, `inner: duplicate key "score"`},
		{"dup map value", `{"by_name":{"x":{"name":"a","name":"b"}}}`, `by_name.x: duplicate key "name"`},
		{"dup map key", `{"by_name":{"x":{},"x":{}}}`, `by_name: duplicate key "x"`},
		{"dup embedded", `{"emb":"a","emb":"b"}`, `duplicate key "emb"`},
		{"dup embedded nested", `{"deep":{"name":"a","name":"b"}}`, `deep: duplicate key "name"`},
		{"dup embedded pointer", `{"emb_p":1,"emb_p":2}`, `duplicate key "emb_p"`},
		{"dup pointer", `{"inner_p":{"name":"a","name":"b"}}`, `inner_p: duplicate key "name"`},
		{"dup map of pointers", `{"by_name_p":{"k":{"score":1,"score":1}}}`, `by_name_p.k: duplicate key "score"`},
		{"dup interface", `{"any":{"a":[1,{"b":1,"b":2}]}}`, `any.a[1]: duplicate key "b"`},
		{"dup raw", `{"raw":{"a":{"c":[{"d":1,"d":1}]}}}`, `raw.a.c[0]: duplicate key "d"`},
		{"dup self-decoding struct", `{"records":[{"user":"a","user":"b"}]}`, `records[0]: duplicate key "user"`},
		{"dup many keys", `{"any":{` + manyKeysJSON(40) + `,"k7":0}}`, `any: duplicate key "k7"`},
		{"dup odd key", `{"any":{"a.b":{"x":1,"x":2}}}`, `any["a.b"]: duplicate key "x"`},

		// 2. A key that names a field only under case folding.
		{"case top", `{"user":"j","USER":"k"}`, `key "USER" is not "user": keys are case-sensitive`},
		{"case long s", `{"uſer":"k"}`, `key "u\u017fer" is not "user": keys are case-sensitive`},
		{"case Kelvin", `{"\u212Aey":"k"}`, `key "\u212aey" is not "key": keys are case-sensitive`},
		{"case in array of structs", `{"list":[{"name":"a"},{"NAME":"b"}]}`, `list[1]: key "NAME" is not "name": keys are case-sensitive`},
		{"case nested struct", `{"inner":{"Score":1}}`, `inner: key "Score" is not "score": keys are case-sensitive`},
		{"case map value", `{"by_name":{"x":{"nAme":"a"}}}`, `by_name.x: key "nAme" is not "name": keys are case-sensitive`},
		{"case embedded", `{"EMB":"a"}`, `key "EMB" is not "emb": keys are case-sensitive`},
		{"case pointer", `{"inner_p":{"ſcore":1}}`, `inner_p: key "\u017fcore" is not "score": keys are case-sensitive`},
		{"case self-decoding struct", `{"records":[{"User":"a"}]}`, `records[0]: key "User" is not "user": keys are case-sensitive`},
		{"case untagged", `{"untagged":"x"}`, `key "untagged" is not "Untagged": keys are case-sensitive`},

		// 3. An unknown field: at the top, encoding/json's own message.
		{"unknown top", `{"foo":1}`, `json: unknown field "foo"`},
		{"unknown in array", `{"list":[{},{"foo":1}]}`, `list[1]: unknown field "foo"`},
		{"unknown nested", `{"inner":{"foo":1}}`, `inner: unknown field "foo"`},
		{"unknown map value", `{"by_name":{"x":{"foo":1}}}`, `by_name.x: unknown field "foo"`},
		{"unknown self-decoding", `{"records":[{"foo":1}]}`, `records[0]: unknown field "foo"`},
		{"unknown dash tag", `{"Skip":"x"}`, `json: unknown field "Skip"`},
		{"unknown unexported", `{"hidden":"x"}`, `json: unknown field "hidden"`},

		// 4. A value of another JSON type than its field's.
		{"type string", `{"user":1}`, `user: want a string, got a number`},
		{"type int fraction", `{"n":1.5}`, `n: want an integer, got 1.5`},
		{"type int exponent", `{"n":1e3}`, `n: want an integer, got 1e3`},
		{"type int string", `{"n":"1"}`, `n: want an integer, got a string`},
		{"type int range", `{"n":9223372036854775808}`, `n: want an integer from -9223372036854775808 to 9223372036854775807, got 9223372036854775808`},
		{"type uint range", `{"u":256}`, `u: want an integer from 0 to 255, got 256`},
		{"type uint negative", `{"u":-1}`, `u: want an integer from 0 to 255, got -1`},
		{"type uint minus zero", `{"u":-0}`, `u: want an integer from 0 to 255, got -0`},
		{"type float range", `{"f":1e39}`, `f: want a number within float32 range, got 1e39`},
		{"type float string", `{"f":"1"}`, `f: want a number, got a string`},
		{"type bool", `{"b":"true"}`, `b: want true or false, got a string`},
		{"type bool number", `{"b":1}`, `b: want true or false, got a number`},
		{"type array", `{"list":{}}`, `list: want an array, got an object`},
		{"type object", `{"inner":[]}`, `inner: want an object, got an array`},
		{"type string bool", `{"user":true}`, `user: want a string, got true`},
		{"type top", `[1]`, `want an object, got an array`},
		{"type array too long", `{"arr":[1,2,3]}`, `arr: want an array of at most 2 values, got more`},
		{"type in array", `{"list":[{},{"score":"1"}]}`, `list[1].score: want an integer, got a string`},
		{"type map value", `{"by_name":{"x":{"score":"1"}}}`, `by_name.x.score: want an integer, got a string`},
		{"type map", `{"by_name":[]}`, `by_name: want an object, got an array`},
		{"type embedded", `{"deep":{"name":false}}`, `deep.name: want a string, got false`},
		{"type embedded pointer", `{"emb_p":"1"}`, `emb_p: want an integer, got a string`},
		{"type pointer", `{"inner_p":{"score":0.5}}`, `inner_p.score: want an integer, got 0.5`},
		{"type self-decoding", `{"records":[{"count":300}]}`, `records[0].count: want an integer from -128 to 127, got 300`},
		{"type self-decoding object", `{"records":["x"]}`, `records[0]: want an object, got a string`},
		{"type self-decoding slice", `{"records":[{"tags":[1]}]}`, `records[0].tags[0]: want a string, got a number`},

		// 5. Times: RFC 3339, every part in range.
		{"time layout", `{"at":"2025-06-01 10:00"}`, `at: ` + rfc + `"2025-06-01 10:00"`},
		{"time offset 24", `{"at":"2025-06-01T10:00:00+24:00"}`, `at: ` + rfc + `"2025-06-01T10:00:00+24:00" (offset +24:00 is beyond ±23:59)`},
		{"time offset -24", `{"at":"2025-06-01T10:00:00-24:00"}`, `at: ` + rfc + `"2025-06-01T10:00:00-24:00" (offset -24:00 is beyond ±23:59)`},
		{"time offset 24:59", `{"at":"2025-06-01T10:00:00+24:59"}`, `(offset +24:59 is beyond ±23:59)`},
		{"time offset 23:60", `{"at_p":"2025-06-01T10:00:00+23:60"}`, `at_p: ` + rfc + `"2025-06-01T10:00:00+23:60" (offset +23:60 is beyond ±23:59)`},
		{"time month", `{"at":"2025-13-01T10:00:00Z"}`, `(month 13 is out of range)`},
		{"time day", `{"at":"2025-02-29T10:00:00Z"}`, `(day 29 is out of range)`},
		{"time hour", `{"at":"2025-06-01T24:00:00Z"}`, `(hour 24 is out of range)`},
		{"time second", `{"at":"2025-06-01T10:00:60Z"}`, `(second 60 is out of range)`},
		{"time one-digit hour", `{"at":"2025-06-01T1:00:00Z"}`, `at: ` + rfc + `"2025-06-01T1:00:00Z"`},
		{"time comma", `{"at":"2025-06-01T10:00:00,5Z"}`, `at: ` + rfc + `"2025-06-01T10:00:00,5Z"`},
		{"time lower case", `{"at":"2025-06-01t10:00:00z"}`, `at: ` + rfc + `"2025-06-01t10:00:00z"`},
		{"time escaped", `{"at":"2025-06-01T10:00:00\u002B09:00"}`, `at: ` + rfc + `"2025-06-01T10:00:00+09:00"`},
		{"time long", `{"at":"` + strings.Repeat("あ", 30) + `"}`, `at: ` + rfc + `"` + strings.Repeat("あ", 21) + `…"`},
		{"time number", `{"at_p":5}`, `at_p: ` + rfc + `a number`},
		{"time in self-decoding", `{"records":[{},{"occurred_at":"June"}]}`, `records[1].occurred_at: ` + rfc + `"June"`},

		// 6. An UnmarshalJSON's own error, with its path.
		{"method in array", `{"records":[{},{"kind":"x"}]}`, `records[1].kind: kind "x": want a number or one of fact=2, loop=7`},
		{"method of struct", `{"records":[{},{"occurred_at":"0001-01-01T00:00:00Z"}]}`, `records[1]: occurred_at is the zero time`},

		// Syntax comes first, as encoding/json reads the value whole
		// before it decodes it.
		{"syntax after a duplicate", `{"user":"j","user":"k",`, `unexpected EOF`},
		{"syntax after a type error", `{"user":1,"n":tru}`, `invalid character '}' in literal true (expecting 'e')`},
	}
	for _, c := range cases {
		var got testBody
		err := DecodeBytes([]byte(c.in), &got)
		if err == nil || !strings.HasSuffix(err.Error(), c.err) || !strings.HasPrefix(c.err, "(") && err.Error() != c.err {
			t.Errorf("%s: %s: %v, want %q", c.name, c.in, err, c.err)
		}
	}
}

// manyKeysJSON returns n distinct members k0..k(n-1).
func manyKeysJSON(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

// TestWalkAccepts: what the walk lets through decodes to what
// encoding/json gives, nulls and the values it leaves to encoding/json
// included.
func TestWalkAccepts(t *testing.T) {
	cases := []string{
		`{}`,
		`null`,
		`{"user":"j","key":"k","n":-9223372036854775808,"u":255,"f":3.4e38,"b":true}`,
		`{"at":"2025-06-01T10:00:00.123456789+09:00","at_p":"2024-02-29T23:59:59-23:59"}`,
		`{"at":"0000-01-01T00:00:00Z","at_p":"2025-06-01T10:00:00.5-00:00"}`,
		`{"inner":{"name":"a","score":1},"inner_p":{"name":"b"},"list":[{"name":"c"},{}],"arr":[1]}`,
		`{"by_name":{"x":{"name":"a"},"X":{"name":"b"}},"by_name_p":{"k":null}}`,
		`{"any":{"a":[1,"x",{"b":null}],"A":2},"raw":{"a":[1,2]},"num":1e400,"bytes":"aGk=","quoted":"12"}`,
		`{"records":[{"id":"1","user":"u","user_text":"t","occurred_at":"2025-06-01T10:00:00Z","kind":"loop","count":-128,"tags":["a"]},null,{"kind":2}]}`,
		`{"emb":"e","deep":{"score":2},"emb_p":3,"Untagged":"x"}`,
		`{"user":null,"n":null,"inner":null,"list":null,"at":null,"records":[{"occurred_at":null,"kind":null}],"by_name":{"x":null}}`,
		` {"user":"\u0075\n\ud83d\ude00","any":{"\u0061":1,"a\u0000":2}} `,
		`{"f":1e-400,"n":-0,"any":[[[]],{}],"raw":"x"}`,
	}
	for _, in := range cases {
		var got, want testBody
		if err := DecodeBytes([]byte(in), &got); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: encoding/json: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

// TestWalkPrecedence: the fields of embedded structs are the keys
// encoding/json takes, no more: a shallower field wins, then a tagged one,
// and a name two fields share at one depth is no field.
func TestWalkPrecedence(t *testing.T) {
	cases := []struct{ in, err string }{
		{`{"name":"a","Name":"b","X":1,"z":2}`, ""},
		{`{"Y":1}`, `json: unknown field "Y"`},
		{`{"z":"s"}`, `z: want an integer, got a string`},                     // precTop's Z, not precA's
		{`{"NAME":"a"}`, `key "NAME" is not "name": keys are case-sensitive`}, // the first folded match
		{`{"x":1}`, `key "x" is not "X": keys are case-sensitive`},
	}
	for _, c := range cases {
		var got precTop
		err := DecodeBytes([]byte(c.in), &got)
		if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("%s: %v, want %q", c.in, err, c.err)
		}
		if c.err == "" {
			var want precTop
			dec := json.NewDecoder(strings.NewReader(c.in))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&want); err != nil || got != want {
				t.Errorf("%s: %+v; encoding/json %+v, %v", c.in, got, want, err)
			}
		}
	}
}

// TestDecodeBytesAt: a root name opens every path, and a method's error
// keeps what it wraps.
func TestDecodeBytesAt(t *testing.T) {
	cases := []struct {
		in, root string
		v        any
		err      string
	}{
		{`[{},{"occurred_at":"2025-06-01 10:00"}]`, "episodes", &[]testRecord{},
			`episodes[1].occurred_at: want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "2025-06-01 10:00"`},
		{`[{"foo":1}]`, "episodes", &[]testRecord{}, `episodes[0]: unknown field "foo"`},
		{`[{"kind":"x"}]`, "episodes", &[]testRecord{}, `episodes[0].kind: kind "x": want a number or one of fact=2, loop=7`},
		{`[{"occurred_at":"0001-01-01T00:00:00Z"}]`, "episodes", &[]testRecord{}, `episodes[0]: occurred_at is the zero time`},
		{`{"a":1}`, "body", &struct {
			A string `json:"a"`
		}{}, `body.a: want a string, got a number`},
		{`{}`, "episodes", &[]testRecord{}, `episodes: want an array, got an object`},
		{`{"user":"a","user":"b"}`, "body", &map[string]any{}, `body: duplicate key "user"`},
		// At the top with no root, a method's error is as it was.
		{`{"kind":"x"}`, "", &testRecord{}, `kind: kind "x": want a number or one of fact=2, loop=7`},
		{`{"occurred_at":"0001-01-01T00:00:00Z"}`, "", &testRecord{}, `occurred_at is the zero time`},
		{`"x"`, "", new(testKind), `kind "x": want a number or one of fact=2, loop=7`},
	}
	for _, c := range cases {
		err := DecodeBytesAt([]byte(c.in), c.root, c.v)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s at %q: %v, want %q", c.in, c.root, err, c.err)
		}
	}
	var recs []testRecord
	if err := DecodeBytesAt([]byte(`[{},{"kind":"x"}]`), "episodes", &recs); !errors.Is(err, errTestKind) {
		t.Errorf("the method's error is not kept: %v", err)
	}
}

// TestWalkDepth: the walk nests as deeply as encoding/json, and no more,
// without running out of stack.
func TestWalkDepth(t *testing.T) {
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	var v any
	if err := DecodeBytes([]byte(ok), &v); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
	deep := "[" + ok + "]"
	if err := DecodeBytes([]byte(deep), &v); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("%d levels: %v", maxDepth+1, err)
	}
	huge := strings.Repeat(`{"a":[`, 1<<20)
	if err := DecodeBytes([]byte(huge), &v); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("%d levels: %v", 2<<20, err)
	}
}

// TestDecodeNotPointer: a target that is no pointer is encoding/json's
// error, not a panic.
func TestDecodeNotPointer(t *testing.T) {
	var b testBody
	for _, v := range []any{b, nil, (*testBody)(nil)} {
		if err := DecodeBytes([]byte(`{}`), v); err == nil || !strings.Contains(err.Error(), "json: Unmarshal(") {
			t.Errorf("%T: %v", v, err)
		}
	}
}

// TestSchemaCycles: a type that holds itself is walked.
func TestSchemaCycles(t *testing.T) {
	type tree struct {
		Name string           `json:"name"`
		Kids []tree           `json:"kids"`
		Next *tree            `json:"next"`
		ByID map[string]*tree `json:"by_id"`
	}
	var v tree
	err := DecodeBytes([]byte(`{"kids":[{"next":{"by_id":{"a":{"kids":[{"name":1}]}}}}]}`), &v)
	if err == nil || err.Error() != "kids[0].next.by_id.a.kids[0].name: want a string, got a number" {
		t.Errorf("%v", err)
	}
}

// TestWalkManyFields: a struct of more fields than a scan looks through
// (manyFields), and more than a word of bits records (64), keeps the rules.
func TestWalkManyFields(t *testing.T) {
	var fields []reflect.StructField
	for i := range 70 {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: reflect.TypeFor[int](),
			Tag:  reflect.StructTag(fmt.Sprintf(`json:"f%d"`, i)),
		})
	}
	typ := reflect.StructOf(fields)
	cases := []struct{ in, err string }{
		{`{"f0":1,"f69":2,"f33":3}`, ""},
		{`{"f0":1,"f69":2,"f69":3}`, `duplicate key "f69"`},
		{`{"f65":1,"f3":2,"f65":3}`, `duplicate key "f65"`},
		{`{"F68":1}`, `key "F68" is not "f68": keys are case-sensitive`},
		{`{"f70":1}`, `json: unknown field "f70"`},
		{`{"f50":"x"}`, `f50: want an integer, got a string`},
	}
	for _, c := range cases {
		v := reflect.New(typ)
		err := DecodeBytes([]byte(c.in), v.Interface())
		if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("%s: %v, want %q", c.in, err, c.err)
		}
		if c.err == "" {
			want := reflect.New(typ)
			if json.Unmarshal([]byte(c.in), want.Interface()); !reflect.DeepEqual(v.Interface(), want.Interface()) {
				t.Errorf("%s: %v, want %v", c.in, v.Elem(), want.Elem())
			}
		}
	}
}
