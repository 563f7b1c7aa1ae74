package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

func newHash(t testing.TB, opts HashOptions) *Hash {
	t.Helper()
	h, err := NewHash(opts)
	if err != nil {
		t.Fatalf("NewHash(%+v): %v", opts, err)
	}
	return h
}

func embedOne(t testing.TB, e Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatalf("Embed(%q): %v", text, err)
	}
	return vs[0]
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestNewHashOptions(t *testing.T) {
	h := newHash(t, HashOptions{})
	if got, want := h.Identity(), (Identity{Name: "hash-v1", Dim: DefaultHashDim}); got != want {
		t.Errorf("zero options: Identity() = %v, want %v", got, want)
	}
	h = newHash(t, HashOptions{Dim: 64, Terms: strings.Fields})
	if got, want := h.Identity(), (Identity{Name: "hash-v1+w", Dim: 64}); got != want {
		t.Errorf("with Terms: Identity() = %v, want %v", got, want)
	}
	if _, err := NewHash(HashOptions{Dim: -1}); err == nil {
		t.Error("NewHash(Dim: -1) succeeded, want an error")
	}
	var zero Hash
	if _, err := zero.Embed(context.Background(), []string{"x"}); err == nil {
		t.Error("zero-value Hash: Embed succeeded, want an error")
	}
}

func TestHashShapeAndNorm(t *testing.T) {
	for _, dim := range []int{1, 7, 64, 256, 1000} {
		h := newHash(t, HashOptions{Dim: dim})
		texts := []string{"ラーメンを食べた", "a", "雨", "Hello, world!", "", "  \t\n ", "昨日は 友達と 映画を見た"}
		vs, err := h.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != len(texts) {
			t.Fatalf("dim %d: got %d vectors for %d texts", dim, len(vs), len(texts))
		}
		for i, v := range vs {
			if len(v) != dim {
				t.Errorf("dim %d: vector %d has %d values", dim, i, len(v))
			}
			n := norm2(v)
			if strings.TrimSpace(texts[i]) == "" {
				if n != 0 {
					t.Errorf("dim %d: empty text %q has norm %v, want the zero vector", dim, texts[i], n)
				}
				continue
			}
			if math.Abs(n-1) > 1e-6 {
				t.Errorf("dim %d: %q has norm %v, want 1", dim, texts[i], n)
			}
		}
	}
	vs, err := newHash(t, HashOptions{}).Embed(context.Background(), nil)
	if err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %d vectors, %v; want 0, nil", len(vs), err)
	}
}

func TestHashDeterministic(t *testing.T) {
	text := "昨日の夜、駅前の新しいラーメン屋で味噌ラーメンを食べた。Very good!"
	a := embedOne(t, newHash(t, HashOptions{Terms: strings.Fields}), text)
	b := embedOne(t, newHash(t, HashOptions{Terms: strings.Fields}), text)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("two embedders disagree at %d: %v vs %v", i, a[i], b[i])
		}
	}
	// Pin a few values so that an accidental algorithm change (which must
	// come with a new Identity name) fails loudly.
	h := newHash(t, HashOptions{Dim: 8})
	got := embedOne(t, h, "ab")
	// Features of " ab ": " a", "ab", "b ", " ab", "ab ".
	want := make([]float32, 8)
	for _, f := range []string{" a", "ab", "b ", " ab", "ab "} {
		m := fmix64(fnvString(fnvOffset64, f))
		w := float32(1)
		if m>>63 != 0 {
			w = -1
		}
		want[m%8] += w
	}
	l2normalize(want)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf(`"ab" = %v, want %v`, got, want)
		}
	}
}

func TestHashFNVMatchesStdlib(t *testing.T) {
	// fnvString must be the standard FNV-1a 64 (hash/fnv.New64a).
	// Known vectors from the FNV reference: "" and "a" and "foobar".
	for s, want := range map[string]uint64{
		"":       0xcbf29ce484222325,
		"a":      0xaf63dc4c8601ec8c,
		"foobar": 0x85944171f73967e8,
	} {
		if got := fnvString(fnvOffset64, s); got != want {
			t.Errorf("fnvString(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func TestHashSimilarity(t *testing.T) {
	h := newHash(t, HashOptions{})
	same := cosine(embedOne(t, h, "ラーメンを食べた"), embedOne(t, h, "ラーメンを食べた"))
	if math.Abs(same-1) > 1e-6 {
		t.Errorf("identical texts: cosine %v, want 1", same)
	}

	a := embedOne(t, h, "ラーメンを食べた")
	near := cosine(a, embedOne(t, h, "ラーメン食べたい"))
	far := cosine(a, embedOne(t, h, "明日は雨が降る"))
	t.Logf("near %.3f far %.3f", near, far)
	if near < 0.4 || near-far < 0.3 {
		t.Errorf("cosine(ラーメンを食べた, ラーメン食べたい) = %.3f, vs 明日は雨が降る = %.3f; want clearly higher", near, far)
	}

	en := embedOne(t, h, "I ate ramen yesterday")
	enNear := cosine(en, embedOne(t, h, "ramen for dinner"))
	enFar := cosine(en, embedOne(t, h, "the weather is cold"))
	if enNear <= enFar {
		t.Errorf("English: near %.3f <= far %.3f", enNear, enFar)
	}
}

func TestHashNormalization(t *testing.T) {
	h := newHash(t, HashOptions{})
	for _, tc := range []struct{ a, b string }{
		{"ＡＢＣ", "abc"},
		{"ＡＢＣ", "ABC"},
		{"ｶﾀｶﾅ", "カタカナ"},
		{"１２３", "123"},
		{"  ラーメン \t 食べた\r\n", "ラーメン 食べた"},
		{"Hello　World", "hello world"}, // ideographic space
	} {
		if c := cosine(embedOne(t, h, tc.a), embedOne(t, h, tc.b)); math.Abs(c-1) > 1e-6 {
			t.Errorf("cosine(%q, %q) = %v, want 1", tc.a, tc.b, c)
		}
	}
}

func TestHashTerms(t *testing.T) {
	var got []string
	var mu sync.Mutex
	terms := func(s string) []string {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
		switch s {
		case "らーめんを食べた":
			return []string{"ラーメン", "", "食べる"}
		case "ラーメン屋":
			return []string{"ラーメン", "屋"}
		}
		return nil
	}
	plain := newHash(t, HashOptions{})
	withTerms := newHash(t, HashOptions{Terms: terms})

	a, b := "らーめんを食べた", "ラーメン屋" // hiragana vs katakana: no shared n-gram
	cPlain := cosine(embedOne(t, plain, a), embedOne(t, plain, b))
	cTerms := cosine(embedOne(t, withTerms, a), embedOne(t, withTerms, b))
	if cTerms <= cPlain+0.1 {
		t.Errorf("a shared term should raise the cosine: without terms %.3f, with %.3f", cPlain, cTerms)
	}
	if len(got) != 2 || got[0] != a {
		t.Errorf("Terms received %q, want the normalised texts", got)
	}
	// Terms get NFKC-normalised, lower-cased input.
	got = nil
	embedOne(t, withTerms, " ＲＡＭＥＮ  ")
	if len(got) != 1 || got[0] != "ramen" {
		t.Errorf("Terms received %q, want [ramen]", got)
	}
}

func TestHashContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	vs, err := newHash(t, HashOptions{}).Embed(ctx, []string{"ラーメン"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled ctx = %v, %v; want context.Canceled", vs, err)
	}
}

func TestHashConcurrent(t *testing.T) {
	h := newHash(t, HashOptions{Terms: strings.Fields})
	texts := []string{"ラーメンを食べた", "明日は雨が降る", "I ate ramen", "猫が好き", "ＡＢＣ"}
	want, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := h.Embed(context.Background(), texts)
				if err != nil {
					errs <- err.Error()
					return
				}
				for i := range got {
					for j := range got[i] {
						if got[i][j] != want[i][j] {
							errs <- "concurrent result differs"
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkHashEmbed(b *testing.B) {
	// 100 code points of Japanese.
	text := "昨日の夜は駅前に新しくできたラーメン屋で友達と一緒に味噌ラーメンを食べたけれど、スープが濃くてとても美味しかったので、また来週も行こうと約束した。帰り道では雨が降り出して傘を持っていなかったから少し濡れてしまった。"
	text = string([]rune(text)[:100])
	h, err := NewHash(HashOptions{})
	if err != nil {
		b.Fatal(err)
	}
	texts := []string{text}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}
