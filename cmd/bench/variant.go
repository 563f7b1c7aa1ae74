package main

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide/retriever"
)

// variant is a named set of retriever option overrides, for ablations: each
// variant runs every configuration of the grid again with its fields set.
type variant struct {
	Name string
	Set  map[string]string // field path (Rerank.WeightLex, Gate.MinCoverage) → value
	keys []string          // in the order given
}

// parseVariant reads "name:Field=value,Field=value" (the empty name is
// "base"; "name:" alone is the preset unchanged).
func parseVariant(s string) (variant, error) {
	name, sets, ok := strings.Cut(s, ":")
	if !ok {
		return variant{}, fmt.Errorf("%w: variant %q: want name:Field=value,...", errUsage, s)
	}
	v := variant{Name: strings.TrimSpace(name), Set: map[string]string{}}
	for kv := range strings.SplitSeq(sets, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return variant{}, fmt.Errorf("%w: variant %q: %q is not Field=value", errUsage, name, kv)
		}
		v.Set[k] = val
		v.keys = append(v.keys, k)
	}
	// Check the paths now, on the zero options, so that a typo fails at once.
	var o retriever.Options
	if err := v.apply(&o); err != nil {
		return variant{}, err
	}
	return v, nil
}

// apply sets the variant's fields on o.
func (v variant) apply(o *retriever.Options) error {
	for _, k := range v.keys {
		if err := setField(reflect.ValueOf(o).Elem(), k, v.Set[k]); err != nil {
			return fmt.Errorf("%w: variant %q: %v", errUsage, v.Name, err)
		}
	}
	return nil
}

// setField sets the exported field at a dotted path of struct value s from
// its text: ints, floats, bools and durations.
func setField(s reflect.Value, path, text string) error {
	f := s
	for name := range strings.SplitSeq(path, ".") {
		if f.Kind() != reflect.Struct {
			return fmt.Errorf("field %s: %s is not a struct", path, name)
		}
		f = f.FieldByName(name)
		if !f.IsValid() || !f.CanSet() {
			return fmt.Errorf("no settable field %s", path)
		}
	}
	switch {
	case f.Type() == reflect.TypeFor[time.Duration]():
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("field %s: %v", path, err)
		}
		f.SetInt(int64(d))
	case f.CanInt():
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return fmt.Errorf("field %s: %v", path, err)
		}
		f.SetInt(n)
	case f.CanFloat():
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("field %s: %v", path, err)
		}
		f.SetFloat(x)
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("field %s: %v", path, err)
		}
		f.SetBool(b)
	default:
		return fmt.Errorf("field %s: type %s cannot be set from a flag", path, f.Type())
	}
	return nil
}

// variantFlag is a repeatable -variant flag.
type variantFlag []variant

func (l *variantFlag) String() string {
	names := make([]string, len(*l))
	for i, v := range *l {
		names[i] = v.Name
	}
	return strings.Join(names, ",")
}

func (l *variantFlag) Set(s string) error {
	v, err := parseVariant(s)
	if err != nil {
		return err
	}
	*l = append(*l, v)
	return nil
}

// withVariants returns each configuration once per variant, its options
// changed and its preset labelled preset+name; no variants returns cfgs.
func withVariants(cfgs []config, vs []variant) ([]config, error) {
	if len(vs) == 0 {
		return cfgs, nil
	}
	var out []config
	for _, c := range cfgs {
		for _, v := range vs {
			d := c
			if err := v.apply(&d.Opts); err != nil {
				return nil, err
			}
			if v.Name != "" {
				d.Preset += "+" + v.Name
			}
			out = append(out, d)
		}
	}
	return out, nil
}
