package tokenize

import (
	"os"
	"testing"
	"time"
)

func TestZZInputs(t *testing.T) {
	db := openFTS(t, "昨日 ラーメン 食べる", "near a b", "col x and or not")
	for _, f := range []string{"/tmp/in1", "/tmp/in2"} {
		b, _ := os.ReadFile(f)
		s := string(b)
		for _, a := range []Analyzer{Raw(), Bigram(), Kagome()} {
			st := time.Now()
			terms := a.Terms(s)
			_ = a.Index(s)
			t.Logf("%s %s: %d terms %v", f, a.Name(), len(terms), time.Since(st))
			st = time.Now()
			expr := MatchQuery(terms)
			_, err := search(db, expr)
			t.Logf("   match %v err=%v", time.Since(st), err)
		}
	}
}
