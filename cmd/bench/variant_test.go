package main

import (
	"errors"
	"testing"
	"time"

	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

func TestParseVariant(t *testing.T) {
	v, err := parseVariant("mix:Rank.Fusion.LexicalKNNWeight=0.25,Rank.Weights.Lex=0,Rank.Gate.MinCoverage=0.4,SkipSmallTalk=false,BM25.MaxRows=500,Vector.Timeout=3s")
	if err != nil {
		t.Fatal(err)
	}
	o := retriever.DefaultOptions()
	if err := v.apply(&o); err != nil {
		t.Fatal(err)
	}
	if v.Name != "mix" || o.Rank.Fusion.LexicalKNNWeight != 0.25 || o.Rank.Weights.Lex != 0 || o.Rank.Gate.MinCoverage != 0.4 ||
		o.SkipSmallTalk || o.BM25.MaxRows != 500 || o.Vector.Timeout != 3*time.Second {
		t.Fatalf("variant %q applied: %+v", v.Name, o)
	}
	// The fields it does not name keep the preset's values.
	if o.Rank.Weights.RRF != retriever.DefaultOptions().Rank.Weights.RRF || !o.TimeAware {
		t.Fatalf("unnamed fields changed: %+v", o)
	}
	if base, err := parseVariant("base:"); err != nil || len(base.keys) != 0 {
		t.Fatalf("base: %+v, %v", base, err)
	}
	for _, bad := range []string{
		"nocolon",
		"x:NoSuchField=1",
		"x:Rank.NoSuch=1",
		"x:Vector.K=many",
		"x:SkipSmallTalk=perhaps",
		"x:Filter.Kinds=1",    // a slice: not settable from a flag
		"x:Vector.K",          // no value
		"x:Rank=1",            // a struct, not a value
		"x:Vector.K.Deeper=1", // not a struct
		"x:Vector.Timeout=2",  // a duration needs a unit
	} {
		if _, err := parseVariant(bad); !errors.Is(err, errUsage) {
			t.Errorf("parseVariant(%q) = %v, want a usage error", bad, err)
		}
	}
}

func TestWithVariants(t *testing.T) {
	cfgs, err := configGrid([]string{"default"}, []string{armsBM25}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := parseVariant("a:Rank.Fusion.LexicalKNNWeight=0.5")
	b, _ := parseVariant(":BM25.MaxRows=7")
	out, err := withVariants(cfgs, []variant{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Label() != "default+a/bm25/cjk2" || out[1].Label() != "default/bm25/cjk2" {
		t.Fatalf("labels: %v, %v", out[0].Label(), out[1].Label())
	}
	if out[0].Opts.Rank.Fusion.LexicalKNNWeight != 0.5 || out[0].Opts.Vector.K != 0 || out[1].Opts.BM25.MaxRows != 7 || cfgs[0].Opts.Rank.Fusion.LexicalKNNWeight != rerank.DefaultLexicalKNNWeight {
		t.Fatalf("options: %+v / %+v (base %+v)", out[0].Opts, out[1].Opts, cfgs[0].Opts)
	}
}
