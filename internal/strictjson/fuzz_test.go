package strictjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzDecode checks the one reading: whatever DecodeBytes accepts into a
// struct, a second parser (encoding/json into a map, which matches keys
// exactly and keeps the last of two) reads as the same values for the
// struct's fields, with no key given twice. It also checks that the
// walk's scanner takes exactly what encoding/json takes as JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		// The attack bodies: one body, two readings.
		`{"user":"j","USER":"k","text":"x"}`,
		`{"user":"j","user":"k","text":"x"}`,
		`{"uſer":"k","user":"j"}`,
		`{"\u212Aey":"x","key":"y"}`,
		`{"user":"j","\u0075ser":"k"}`,
		`{"records":[{"user":"a","User":"b"}]}`,
		`{"records":[{"occurred_at":"2025-06-01T10:00:00+24:00"}]}`,
		`{"at":"2025-06-01T10:00:00+23:60","at_p":"2025-06-01T1:00:00Z"}`,
		`{"any":{"a":1,"a":2},"raw":{"b":[{"c":1,"c":2}]}}`,
		`{"by_name":{"x":{"name":"a"},"x":{"name":"b"}}}`,
		`{"n":1e3,"u":-0,"f":1e39,"arr":[1,2,3]}`,
		// Valid bodies of each shape.
		`{"user":"j","key":"k","n":-9223372036854775808,"u":255,"f":3.4e38,"b":true}`,
		`{"at":"2025-06-01T10:00:00.123456789+09:00","at_p":"2024-02-29T23:59:59-23:59"}`,
		`{"inner":{"name":"a","score":1},"inner_p":{"name":"b"},"list":[{"name":"c"},{}],"arr":[1]}`,
		`{"by_name":{"x":{"name":"a"},"X":{"name":"b"}},"by_name_p":{"k":null}}`,
		`{"any":{"a":[1,"x",{"b":null}],"A":2},"raw":{"a":[1,2]},"num":1e400,"bytes":"aGk=","quoted":"12"}`,
		`{"records":[{"id":"1","user":"u","user_text":"t","occurred_at":"2025-06-01T10:00:00Z","kind":"loop","count":-128,"tags":["a"]},null,{"kind":2}]}`,
		`{"emb":"e","deep":{"score":2},"emb_p":3,"Untagged":"x"}`,
		"\ufeff{\"user\":\"\\ud83d\\ude00\"}",
		"2025-06-01T10:00:00.5+09:00",
		"2024-02-29T23:59:59-23:59",
		`[{"user":"x"}]`,
		`{"user":"x"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if CheckText(in) == nil {
			body, _ := bytes.CutPrefix(in, bom)
			w := walker{data: body}
			err := w.skip()
			w.skipSpace()
			if mine, theirs := err == nil && w.pos == len(body), json.Valid(body); mine != theirs {
				t.Fatalf("%q: the walk reads it as JSON: %v (%v); encoding/json: %v", in, mine, err, theirs)
			}
		}
		if rfc3339Problem(in, false) == "" {
			// A time the walk takes, time.Time takes as the same instant.
			var tm time.Time
			err := tm.UnmarshalJSON([]byte(strconv.Quote(string(in))))
			if p, perr := time.Parse(time.RFC3339, string(in)); err != nil || perr != nil || !p.Equal(tm) {
				t.Fatalf("%q: the walk takes it; time.Time: %v, %v", in, err, perr)
			}
		}
		var got testBody
		if err := DecodeBytes(in, &got); err == nil {
			checkOneReading(t, in, &got)
		}
		var recs []testRecord
		if err := DecodeBytesAt(in, "episodes", &recs); err == nil {
			checkOneReading(t, in, &recs)
		}
	})
}

// checkOneReading fails t unless in, which DecodeBytes decoded into v, has
// no key twice and reads through encoding/json into a map as v's values.
func checkOneReading(t *testing.T, in []byte, v any) {
	t.Helper()
	body, _ := bytes.CutPrefix(in, bom)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		t.Fatalf("%q: accepted, but the second parser fails: %v", in, err)
	}
	tokens := json.NewDecoder(bytes.NewReader(body))
	tokens.UseNumber()
	if key, err := duplicateKey(tokens); key != "" || err != nil {
		t.Fatalf("%q: accepted with key %q twice (%v)", in, key, err)
	}
	if err := sameReading(reflect.ValueOf(v).Elem(), tree); err != nil {
		t.Fatalf("%q: two readings: %v", in, err)
	}
}

// duplicateKey returns a key some object of the value dec reads has twice.
func duplicateKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return "", err
			}
			key := k.(string)
			if seen[key] {
				return key, nil
			}
			seen[key] = true
			if key, err := duplicateKey(dec); key != "" || err != nil {
				return key, err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if key, err := duplicateKey(dec); key != "" || err != nil {
				return key, err
			}
		}
		_, err = dec.Token()
	}
	return "", err
}

// sameReading returns how rv, a value decoded, differs from a, the same
// JSON as a second parser reads it (numbers as json.Number), if it does.
func sameReading(rv reflect.Value, a any) error {
	if a == nil {
		return nil // null leaves a value as it was
	}
	switch rv.Type() {
	case reflect.TypeFor[time.Time]():
		s, _ := a.(string)
		want, err := time.Parse(time.RFC3339Nano, s)
		if got := rv.Interface().(time.Time); err != nil || !got.Equal(want) || got.Format(time.RFC3339Nano) != want.Format(time.RFC3339Nano) {
			return fmt.Errorf("time %v, second parser %q (%v)", got, s, err)
		}
		return nil
	case reflect.TypeFor[json.RawMessage]():
		dec := json.NewDecoder(bytes.NewReader(rv.Bytes()))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil || !reflect.DeepEqual(raw, a) {
			return fmt.Errorf("raw %s, second parser %v (%v)", rv.Bytes(), a, err)
		}
		return nil
	case reflect.TypeFor[testKind]():
		b, _ := json.Marshal(a)
		var k testKind
		if err := k.UnmarshalJSON(b); err != nil || int(k) != int(rv.Int()) {
			return fmt.Errorf("kind %d, second parser %s (%v)", rv.Int(), b, err)
		}
		return nil
	case reflect.TypeFor[json.Number]():
		if s := fmt.Sprint(a); s != rv.String() {
			return fmt.Errorf("number %s, second parser %s", rv.String(), s)
		}
		return nil
	}
	mismatch := func() error { return fmt.Errorf("%v (%s), second parser %#v", rv, rv.Type(), a) }
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return mismatch()
		}
		return sameReading(rv.Elem(), a)
	case reflect.Interface:
		if !sameAny(rv.Interface(), a) {
			return mismatch()
		}
	case reflect.String:
		if s, ok := a.(string); !ok || s != rv.String() {
			return mismatch()
		}
	case reflect.Bool:
		if b, ok := a.(bool); !ok || b != rv.Bool() {
			return mismatch()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := a.(json.Number); !ok || string(n) != strconv.FormatInt(rv.Int(), 10) && string(n) != "-0" {
			return mismatch()
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := a.(json.Number); !ok || string(n) != strconv.FormatUint(rv.Uint(), 10) {
			return mismatch()
		}
	case reflect.Float32, reflect.Float64:
		n, ok := a.(json.Number)
		f, err := strconv.ParseFloat(string(n), rv.Type().Bits())
		if !ok || err != nil || f != rv.Float() {
			return mismatch()
		}
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			if s, ok := a.(string); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err != nil || !bytes.Equal(b, rv.Bytes()) {
					return mismatch()
				}
				return nil
			}
		}
		fallthrough
	case reflect.Array:
		list, ok := a.([]any)
		if !ok || len(list) > rv.Len() || rv.Kind() == reflect.Slice && len(list) != rv.Len() {
			return mismatch()
		}
		for i, e := range list {
			if err := sameReading(rv.Index(i), e); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	case reflect.Map:
		m, ok := a.(map[string]any)
		if !ok || len(m) != rv.Len() {
			return mismatch()
		}
		for k, e := range m {
			v := rv.MapIndex(reflect.ValueOf(k))
			if !v.IsValid() {
				return fmt.Errorf("%s: missing", k)
			}
			if err := sameReading(v, e); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	case reflect.Struct:
		m, ok := a.(map[string]any)
		if !ok {
			return mismatch()
		}
		fields := jsonFields(rv.Type(), nil)
		for k, e := range m {
			f, ok := fields[k]
			if !ok {
				return fmt.Errorf("key %q names no field, but was taken", k)
			}
			v, err := rv.FieldByIndexErr(f.index)
			if err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
			if f.quoted && e != nil {
				// ",string": the number the string holds ("00" is 0).
				s, _ := e.(string)
				if n, err := strconv.ParseInt(s, 10, 64); err != nil || n != v.Int() {
					return fmt.Errorf("%s: %d, second parser %v", k, v.Int(), e)
				}
				continue
			}
			if err := sameReading(v, e); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	default:
		return mismatch()
	}
	return nil
}

// sameAny reports whether x, decoded into an interface{}, is a, read with
// numbers as json.Number.
func sameAny(x, a any) bool {
	switch a := a.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(a), 64)
		return err == nil && x == f
	case []any:
		list, ok := x.([]any)
		if !ok || len(list) != len(a) {
			return false
		}
		for i := range a {
			if !sameAny(list[i], a[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		m, ok := x.(map[string]any)
		if !ok || len(m) != len(a) {
			return false
		}
		for k, e := range a {
			if xe, ok := m[k]; !ok || !sameAny(xe, e) {
				return false
			}
		}
		return true
	}
	return x == a
}

type testField struct {
	index  []int
	quoted bool
}

// jsonFields returns the JSON keys of struct type t, for the test's types,
// which embed without conflicts: a json tag's name, or the Go name of an
// exported field; embedded untagged structs promote their fields.
func jsonFields(t reflect.Type, index []int) map[string]testField {
	fields := map[string]testField{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		at := append(append([]int{}, index...), i)
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-":
		case sf.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			for k, f := range jsonFields(ft, at) {
				fields[k] = f
			}
		case sf.IsExported():
			if name == "" {
				name = sf.Name
			}
			fields[name] = testField{index: at, quoted: opts == "string"}
		}
	}
	return fields
}

// TestSameReadingCatches: the fuzz property fails on what encoding/json
// alone would take: a duplicate, a folded key.
func TestSameReadingCatches(t *testing.T) {
	for _, in := range []string{`{"user":"j","USER":"k"}`, `{"uſer":"j"}`} {
		var v testBody
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		var tree any
		json.Unmarshal([]byte(in), &tree)
		if err := sameReading(reflect.ValueOf(v), tree); err == nil {
			t.Errorf("%s: no second reading found", in)
		}
	}
	key, err := duplicateKey(json.NewDecoder(strings.NewReader(`{"a":[{"b":1,"\u0062":2}]}`)))
	if key != "b" || err != nil && !errors.Is(err, io.EOF) {
		t.Errorf("duplicateKey: %q, %v", key, err)
	}
}
