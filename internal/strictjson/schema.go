package strictjson

import (
	"cmp"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// kind is what a Go type takes from JSON, as far as the walk checks it.
type kind uint8

const (
	// anyKind is a type the walk does not model (interface{}, json.Number,
	// []byte as base64, encoding.TextUnmarshaler types, ",string" fields):
	// encoding/json judges its value; the walk only looks in it for
	// duplicate keys.
	anyKind kind = iota
	stringKind
	boolKind
	intKind
	uintKind
	floatKind
	timeKind
	structKind
	mapKind
	sliceKind
	arrayKind
	// unmarshalerKind is a non-struct type with its own UnmarshalJSON
	// (episode.Kind, json.RawMessage): looked in for duplicate keys, its
	// value judged by its method.
	unmarshalerKind
)

// node is the schema of a Go type for the walk: what JSON it takes and,
// for containers, the schema of what they hold. Nodes are built once per
// type and never changed after.
type node struct {
	kind   kind
	bits   int     // intKind, uintKind, floatKind: the size
	n      int     // arrayKind: the length
	elem   *node   // sliceKind, arrayKind, mapKind: the element's schema
	fields []field // structKind: its encoding/json fields, in field order
	// exact indexes fields by name in a struct with many of them.
	exact map[string]int
	// unmarshaler is the type whose pointer has the UnmarshalJSON that
	// encoding/json calls for this value, if any (a struct's too).
	unmarshaler reflect.Type
}

// field is a JSON field of a struct.
type field struct {
	name   string // the key, exactly
	folded string // name as encoding/json folds it (foldName)
	node   *node
}

// manyFields is the field count beyond which a struct's fields are looked
// up by a map instead of a linear scan.
const manyFields = 16

// anyNode is the schema of a value the walk does not model.
var anyNode = &node{kind: anyKind}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType            = reflect.TypeFor[time.Time]()
	numberType          = reflect.TypeFor[json.Number]()
)

// nodeKey names a node: a type, and whether it is reached through a
// pointer, which matters to encoding/json for an unnamed type only (it
// looks for an UnmarshalJSON on a pointer, and takes the address of a
// named type's value to find one).
type nodeKey struct {
	t          reflect.Type
	viaPointer bool
}

// nodes caches the schema of each type met: map[nodeKey]*node, filled
// lazily, each entry read-only once stored. tops caches the schema of each
// type given to DecodeBytes: map[reflect.Type]*node.
var nodes, tops sync.Map

// schemaOf returns the schema of the value t points to (t as given to
// DecodeBytes: a pointer type).
func schemaOf(t reflect.Type) *node {
	if n, ok := tops.Load(t); ok {
		return n.(*node)
	}
	b := builder{building: map[nodeKey]*node{}}
	n := b.node(t)
	for k, n := range b.building {
		nodes.LoadOrStore(k, n)
	}
	tops.Store(t, n)
	return n
}

// builder builds the schema of one type and of the types it holds; types
// that hold themselves (type T struct{ Kids []T }) meet their own node
// while it is being filled.
type builder struct {
	building map[nodeKey]*node
}

// node returns the schema of a value of type t.
func (b *builder) node(t reflect.Type) *node {
	via := false
	for t.Kind() == reflect.Pointer {
		t, via = t.Elem(), true
	}
	k := nodeKey{t, via && t.Name() == ""}
	if n, ok := b.building[k]; ok {
		return n
	}
	if n, ok := nodes.Load(k); ok {
		return n.(*node)
	}
	n := &node{}
	b.building[k] = n
	b.fill(n, t, via || t.Name() != "")
	return n
}

// fill sets n to the schema of t; addressable says whether encoding/json
// would look for methods on a pointer to it.
func (b *builder) fill(n *node, t reflect.Type, addressable bool) {
	pt := reflect.PointerTo(t)
	switch {
	case t == timeType:
		n.kind = timeKind
		return
	case t == numberType:
		n.kind = anyKind
		return
	case addressable && pt.Implements(unmarshalerType):
		n.unmarshaler = t
		if t.Kind() == reflect.Struct {
			// A struct that decodes itself (episode.Record) is walked as
			// its own fields, unless it has none: then its method reads
			// something else than an object of them.
			if b.fillStruct(n, t); len(n.fields) > 0 {
				return
			}
			n.fields, n.exact = nil, nil
		}
		n.kind = unmarshalerKind
		return
	case addressable && pt.Implements(textUnmarshalerType):
		n.kind = anyKind
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		n.kind = boolKind
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = intKind, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind, n.bits = uintKind, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = floatKind, t.Bits()
	case reflect.String:
		n.kind = stringKind
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			n.kind = anyKind // base64 text or an array of bytes
			return
		}
		n.kind, n.elem = sliceKind, b.node(t.Elem())
	case reflect.Array:
		n.kind, n.n, n.elem = arrayKind, t.Len(), b.node(t.Elem())
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
				n.kind = anyKind // encoding/json refuses it
				return
			}
		}
		n.kind, n.elem = mapKind, b.node(t.Elem())
	case reflect.Struct:
		b.fillStruct(n, t)
	default: // interfaces; kinds encoding/json refuses
		n.kind = anyKind
	}
}

// fillStruct makes n the schema of struct type t.
func (b *builder) fillStruct(n *node, t reflect.Type) {
	n.kind = structKind
	for _, sf := range structFields(t) {
		f := field{name: sf.name, folded: string(foldName([]byte(sf.name)))}
		if sf.quoted {
			f.node = anyNode
		} else {
			f.node = b.node(sf.typ)
		}
		n.fields = append(n.fields, f)
	}
	if len(n.fields) > manyFields {
		n.exact = make(map[string]int, len(n.fields))
		for i, f := range n.fields {
			n.exact[f.name] = i
		}
	}
}

// lookup returns the index of the field named key exactly, or -1.
func (n *node) lookup(key []byte) int {
	if n.exact != nil {
		if i, ok := n.exact[string(key)]; ok {
			return i
		}
		return -1
	}
	for i := range n.fields {
		if n.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// lookupFolded returns the index of the field encoding/json would give a
// key that names none exactly, or -1: the first whose name equals key
// under Unicode simple case folding (bytes.EqualFold).
func (n *node) lookupFolded(key []byte) int {
	folded := foldName(key)
	for i := range n.fields {
		if n.fields[i].folded == string(folded) {
			return i
		}
	}
	return -1
}

// structField is a JSON field of a struct as encoding/json finds it.
type structField struct {
	name   string
	tagged bool         // the name is the json tag's
	index  []int        // the field's index sequence through embedded structs
	typ    reflect.Type // the Go field's type
	quoted bool         // the ",string" option, on a type it applies to
}

// structFields returns the JSON fields of struct type t in index order, by
// encoding/json's rules: json tags name, "-" drops, untagged exported
// fields go by their Go names, embedded structs' fields are promoted
// (the shallowest wins; at equal depth a tagged one; else all are
// dropped), unexported non-embedded fields are ignored.
func structFields(t reflect.Type) []structField {
	var fields []structField
	current, next := []structField{}, []structField{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTag(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					quoted := false
					if hasOption(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							quoted = true
						}
					}
					sf := structField{name: name, tagged: name != "", index: index, typ: sf.Type, quoted: quoted}
					if sf.name == "" {
						sf.name = f.typ.Field(i).Name
					}
					fields = append(fields, sf)
					if count[f.typ] > 1 {
						// The same embedded type twice at this depth: a second
						// copy makes the name ambiguous, as in encoding/json.
						fields = append(fields, sf)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, structField{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}
	slices.SortFunc(fields, func(a, b structField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})
	// Keep, of each name, the one field that dominates the others.
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if j-i == 1 || len(fields[i].index) < len(fields[i+1].index) || fields[i].tagged != fields[i+1].tagged {
			out = append(out, fields[i])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b structField) int { return slices.Compare(a.index, b.index) })
	return out
}

// hasOption reports whether a json tag's comma-separated options hold name.
func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTag reports whether encoding/json takes s as a field name in a tag.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// foldName folds b as encoding/json does to match keys to fields: two
// names fold alike exactly when bytes.EqualFold says they are equal.
func foldName(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

// foldRune returns the smallest rune of r's case folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
