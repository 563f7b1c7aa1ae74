package omoidehttp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// jsonShaper is a type that writes its JSON as another struct (MarshalJSON)
// and returns a zero value of that struct (retriever.Hit, Trace, Result).
type jsonShaper interface{ JSONShape() any }

// typeSchemas makes the JSON schema of a Go type from what encoding/json
// writes of it: a struct is a closed object of its json names (embedded
// structs' fields inline), required unless omitempty, described by a "doc"
// tag; a pointer is its element, left out when nil; a slice is an array; a
// jsonShaper is its shape's struct.
type typeSchemas struct {
	// refs are the types with a component of their own: a field of one
	// is a $ref to it.
	refs map[reflect.Type]string
	// named are the schemas of the types reflection cannot tell: those
	// written as something other than their kind (names for numbers, a
	// time as RFC 3339).
	named map[reflect.Type]map[string]any
}

// of is the schema of a field, an item or a pointer's element of type t: a
// $ref when t has a component, else t's own schema.
func (ts typeSchemas) of(t reflect.Type) map[string]any {
	if name, ok := ts.refs[t]; ok {
		return ref(name)
	}
	return ts.schema(t)
}

// schema is t's own schema, never a $ref to it: a component's.
func (ts typeSchemas) schema(t reflect.Type) map[string]any {
	if s, ok := ts.named[t]; ok {
		return s
	}
	if t.Implements(reflect.TypeFor[jsonShaper]()) {
		return ts.schema(reflect.TypeOf(reflect.Zero(t).Interface().(jsonShaper).JSONShape()))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return ts.of(t.Elem())
	case reflect.String:
		return typ("string")
	case reflect.Bool:
		return typ("boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return typ("integer")
	case reflect.Float32, reflect.Float64:
		return number()
	case reflect.Slice, reflect.Array:
		return arrayOf(ts.of(t.Elem()))
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		ts.fields(t, props, &required)
		return object(props, required, true)
	}
	panic(fmt.Sprintf("openapi: no schema for the Go type %s", t)) // a new answer's field: name it in named
}

// fields adds the JSON fields of the struct type t to props, and the names
// of those always written to required, in their order.
func (ts typeSchemas) fields(t reflect.Type, props map[string]any, required *[]string) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			ts.fields(f.Type, props, required)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := ts.of(f.Type)
		if doc := f.Tag.Get("doc"); doc != "" {
			s = withDoc(s, doc)
		}
		props[name] = s
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			*required = append(*required, name)
		}
	}
}

// schemaOf is the schema of v's type (schema).
func (ts typeSchemas) schemaOf(v any) map[string]any { return ts.schema(reflect.TypeOf(v)) }
