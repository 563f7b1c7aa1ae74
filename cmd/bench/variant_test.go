package main

import (
	"errors"
	"testing"
	"time"

	"github.com/omoide/omoide/retriever"
)

func TestParseVariant(t *testing.T) {
	v, err := parseVariant("mix:KNNWeight=0.25,Rerank.WeightLex=0,Gate.MinCoverage=0.4,SkipSmallTalk=false,MaxMatchRows=500,EmbedTimeout=3s")
	if err != nil {
		t.Fatal(err)
	}
	o := retriever.DefaultOptions()
	if err := v.apply(&o); err != nil {
		t.Fatal(err)
	}
	if v.Name != "mix" || o.KNNWeight != 0.25 || o.Rerank.WeightLex != 0 || o.Gate.MinCoverage != 0.4 ||
		o.SkipSmallTalk || o.MaxMatchRows != 500 || o.EmbedTimeout != 3*time.Second {
		t.Fatalf("variant %q applied: %+v", v.Name, o)
	}
	// The fields it does not name keep the preset's values.
	if o.Rerank.WeightRRF != retriever.DefaultOptions().Rerank.WeightRRF || !o.TimeAware {
		t.Fatalf("unnamed fields changed: %+v", o)
	}
	if base, err := parseVariant("base:"); err != nil || len(base.keys) != 0 {
		t.Fatalf("base: %+v, %v", base, err)
	}
	for _, bad := range []string{
		"nocolon",
		"x:NoSuchField=1",
		"x:Rerank.NoSuch=1",
		"x:KNNK=many",
		"x:SkipSmallTalk=perhaps",
		"x:Kinds=1",        // a slice: not settable from a flag
		"x:KNNWeight",      // no value
		"x:Rerank=1",       // a struct, not a value
		"x:KNNK.Deeper=1",  // not a struct
		"x:EmbedTimeout=2", // a duration needs a unit
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
	a, _ := parseVariant("a:KNNWeight=0.5")
	b, _ := parseVariant(":MaxMatchRows=7")
	out, err := withVariants(cfgs, []variant{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Label() != "default+a/bm25/kagome+snowball" || out[1].Label() != "default/bm25/kagome+snowball" {
		t.Fatalf("labels: %v, %v", out[0].Label(), out[1].Label())
	}
	if out[0].Opts.KNNWeight != 0.5 || out[0].Opts.KNNK != 0 || out[1].Opts.MaxMatchRows != 7 || cfgs[0].Opts.KNNWeight != 0 {
		t.Fatalf("options: %+v / %+v (base %+v)", out[0].Opts, out[1].Opts, cfgs[0].Opts)
	}
}
