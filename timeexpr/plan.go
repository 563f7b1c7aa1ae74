package timeexpr

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
)

// tense is what an expression says of its own time, before the sentence
// around it is read.
type tense uint8

const (
	// tPast: the expression alone puts its time in the past (昨日, 先週,
	// last weekend, 3日前, この前の土曜, さっき), whatever the sentence says.
	tPast tense = iota
	// tNow: the current period (今日, 今週, 今月, 今年, この夏, 今週末, this
	// week, 这个周末), part of which may still be ahead.
	tNow
	// tAny: a time that recurs, read as the most recent one (週末, 土曜, on
	// Saturday, over the weekend, 5月に, クリスマス): only the sentence says
	// whether it is past.
	tAny
)

// isPlan reports whether the expression s[i:e], of tense t (not tPast), is
// the time of a plan in its clause. The clause runs from the previous to the
// next of clauseBreaks; its language is English when the expression is
// ASCII, else the clause's by lang.Detect with hint: Japanese when it holds
// kana, or Han alone with a Japanese hint; else Chinese (Korean has no plan
// words of its own yet). The package documentation (Past only) states the
// rules.
func isPlan(s string, i, e int, t tense, hint lang.Language) bool {
	cs, ce := clause(s, i, e)
	switch {
	case isASCII(s[i:e]):
		return enPlan(s, cs, i, ce, t)
	case lang.Detect(s[cs:ce], hint) == lang.Japanese:
		return jaPlan(s[e:ce], t)
	}
	return zhPlan(s[cs:ce], s[e:ce])
}

// clauseBreaks end a clause: sentence punctuation (in normalized text: 。.!?;
// and a line break) and the words that join a clause of its own tense (けど,
// が、, し、, ですし, but, 但, 可是, 不过; not ので, whose clause takes the
// tense of the next: 週末に行くので、楽しみ). A break starts the next clause, so
// that a plan after it (お盆でしたが、何か予定ある?) says nothing of the
// expression before it.
var clauseBreaks = []string{
	"。", ".", "!", "?", ";", "\n", "but",
	"けど", "けれど", "が、", "が,", "し、", "し,", "ですし", "でしたし", "ましたし",
	"但", "可是", "不过", "不過",
}

// asciiBreaks and breakIndex map the first byte (ASCII) or rune of a clause
// break to the breaks starting with it. They are built once and never
// written afterwards.
var asciiBreaks, breakIndex = func() (a [utf8.RuneSelf][]string, m map[rune][]string) {
	m = make(map[rune][]string)
	for _, b := range clauseBreaks {
		if r, _ := utf8.DecodeRuneInString(b); r < utf8.RuneSelf {
			a[r] = append(a[r], b)
		} else {
			m[r] = append(m[r], b)
		}
	}
	return a, m
}()

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// clause returns the clause [cs, ce) around s[i:e].
func clause(s string, i, e int) (cs, ce int) {
	for k := 0; k < len(s); {
		var bs []string
		size := 1
		if s[k] < utf8.RuneSelf {
			bs = asciiBreaks[s[k]]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[k:])
			bs = breakIndex[r]
		}
		n := breakAt(s, k, bs)
		switch {
		case n > 0 && k >= e:
			return cs, k
		case n > 0 && k+n <= i:
			cs = k + n
		}
		k += max(n, size)
	}
	return cs, len(s)
}

// breakAt returns the length of the first of bs at s[k:], or 0. A break of
// ASCII letters (but) must be a whole word.
func breakAt(s string, k int, bs []string) int {
	for _, b := range bs {
		if !strings.HasPrefix(s[k:], b) {
			continue
		}
		if isAlnum(b[0]) && (k > 0 && isAlnum(s[k-1]) || wordEnd(s, k) != k+len(b)) {
			continue
		}
		return len(b)
	}
	return 0
}

// Japanese. A plan is one of:
//   - jaNear right after the expression, or after its の (週末の予定, 土曜予定
//     ある?), whatever the rest says: a plan for a weekend was made before
//     it, so 週末の予定、何だったっけ? names no window either;
//   - with the expression not attributive (not followed by jaAttr: 週末の写真
//     見る? is about the weekend's photos, whenever it was), nor followed by a
//     past copula (お盆だったりします?), and the clause not ending in the past
//     (ending, once jaTrim has stripped particles, hedges and conjunctions,
//     in た: 予定だった, 行こうと思ったけど, 予定でしたが, or in a past んだ:
//     遊んだ):
//   - jaWords anywhere after the expression (週末は山登りに行く予定がある), or a
//     volitional before と思 (富士山に登ろうと思う, 行こうと思ってる), or the
//     clause ending in a volitional (行こう, 会おうよ, 行きましょう);
//   - for a recurring time only (週末, 土曜, お盆; not 今日 or 今年, of which a
//     non-past sentence is as often about the present: 今年は蛙が少ない気が
//     します), the clause ending in たい (jaNotWish aside, jaTryWish kept),
//     楽しみ, a polite non-past ます / ません (not after jaNotPolite: 覚えて
//     ます, 気がします), or one of jaVerbs (日曜は友達と会う, 週末何する?;
//     jaNotVerb aside).
var (
	jaNear       = []string{"予定", "計画"}
	jaAttr       = []string{"の", "とかの", "などの"}
	jaPastCopula = []string{"だった", "でした"} // お盆でした
	jaWords      = []string{"予定", "つもり", "計画"}
	jaNotWish    = []string{"みたい", "冷たい", "重たい", "眠たい", "めでたい", "ありがたい", "平たい"}
	jaTryWish    = []string{"てみたい", "でみたい"} // 見てみたい: a wish after all
	jaVerbs      = []string{"行く", "いく", "会う", "来る", "くる", "帰る", "出かける", "でかける", "遊ぶ", "する"}
	jaNotVerb    = []string{"がする"} // 気がする, 感じがする: a feeling, not a plan
	jaPolite     = []string{"ます", "ません", "ましょう"}
	jaNotPolite  = []string{"て", "で", "てい", "でい", "がし"}
	// jaTails are stripped from the end of a clause before its last word is
	// read: sentence-final particles, the copula, hedges and conjunctions
	// (行く予定だよね is 行く予定, できたと思います is できた, 予定でしたが is
	// 予定でした).
	jaTails = []string{
		"と思っています", "と思ってます", "と思ってる", "と思います", "と思う",
		"かもしれません", "かもしれない", "かも", "でしょう", "だろう", "らしい",
		"けれど", "けども", "けど", "から", "ので", "のに",
		"かしら", "かな", "よね", "っけ", "です", "なの", "なん",
		"よ", "ね", "な", "わ", "さ", "ぞ", "ぜ", "か", "の", "って", "が", "し",
	}
)

// jaPlan reports whether rest, the clause after a Japanese expression of
// tense t, makes the expression the time of a plan.
func jaPlan(rest string, t tense) bool {
	if hasPrefixAny(strings.TrimPrefix(rest, "の"), jaNear) {
		return true
	}
	if hasPrefixAny(rest, jaAttr) || hasPrefixAny(rest, jaPastCopula) {
		return false
	}
	end := jaTrim(rest)
	if strings.HasSuffix(end, "た") || strings.HasSuffix(end, "んだ") {
		return false
	}
	for _, w := range jaWords {
		if strings.Contains(rest, w) {
			return true
		}
	}
	for k := 0; k < len(rest); {
		j := strings.Index(rest[k:], "と思")
		if j < 0 {
			break
		}
		if volitional(rest[:k+j]) {
			return true
		}
		k += j + len("と思")
	}
	switch {
	case volitional(end):
		return true
	case t != tAny:
		return false
	case strings.HasSuffix(end, "楽しみ"):
		return true
	case strings.HasSuffix(end, "たい"):
		return !hasSuffixAny(end, jaNotWish) || hasSuffixAny(end, jaTryWish)
	}
	for _, p := range jaPolite {
		if stem, ok := strings.CutSuffix(end, p); ok {
			return !hasSuffixAny(stem, jaNotPolite)
		}
	}
	return hasSuffixAny(end, jaVerbs) && !hasSuffixAny(end, jaNotVerb)
}

// jaTrim strips from the end of s what carries no tense: separators, small
// kana, jaTails, a copula だ (not the past of 読んだ), and an explanatory ん or
// んだ after a non-past verb, た, い or な (行くんだ, 好きなんです).
func jaTrim(s string) string {
	for {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case n == 0:
			return s
		case isSeparator(r) || strings.ContainsRune("ぁぃぅぇぉっゃゅょゎ〜~w笑", r):
			s = s[:len(s)-n]
			continue
		}
		if t, ok := cutSuffixAny(s, jaTails); ok {
			s = t
			continue
		}
		if t, ok := strings.CutSuffix(s, "だ"); ok && !strings.HasSuffix(t, "ん") {
			s = t
			continue
		}
		t, ok := strings.CutSuffix(s, "んだ")
		if !ok {
			t, ok = strings.CutSuffix(s, "ん")
		}
		if p, _ := utf8.DecodeLastRuneInString(t); ok && strings.ContainsRune("うくぐすずつぬぶむゆるたいな", p) {
			s = t
			continue
		}
		return s
	}
}

// volitional reports whether s ends in a volitional: 行きましょう, or う after a
// kana of the お row that follows a verb stem (行こう, 会おう, 見よう, 遊ぼう,
// 登ろう; not ありがとう, おはよう, だろう, のよう, where a particle or the copula
// comes before, nor なるよう, なよう, たよう: よう after a whole word is
// "seems").
func volitional(s string) bool {
	if strings.HasSuffix(s, "ましょう") {
		return true
	}
	t, ok := strings.CutSuffix(s, "う")
	if !ok {
		return false
	}
	o, n := utf8.DecodeLastRuneInString(t)
	if !strings.ContainsRune("こごとぼもろおよ", o) {
		return false
	}
	stem, _ := utf8.DecodeLastRuneInString(t[:len(t)-n])
	if o == 'よ' && strings.ContainsRune("うくぐすつぬぶむるいな", stem) {
		return false
	}
	return unicode.Is(unicode.Han, stem) ||
		unicode.Is(unicode.Hiragana, stem) && !strings.ContainsRune("はがをにでともへかのだた", stem)
}

// English. A plan is one of:
//   - "plan(s)" right before the expression, or before its "for" or "on"
//     (any plans this weekend?, what were our plans for the weekend?),
//     whatever the rest says;
//   - a clause with no word of the past (enPast, or a word of five letters or
//     more in -ed, enNotPast aside: we watched a movie on saturday) and a word
//     of the future: enFuture (will, 'll, gonna, want, ...), let's / let us,
//     see you, can't wait, be going (I'm going hiking today, is Andrew going;
//     not everything going on), or, for a recurring time only, any present
//     progressive (we're meeting on saturday, what are you doing over the
//     weekend?; not I'm feeling sick today, nor enNot: is amazing).
var (
	enFuture = map[string]bool{
		"will": true, "ll": true, "shall": true, "gonna": true,
		"wanna": true, "want": true, "wants": true, "plan": true, "plans": true,
		"planning": true, "intend": true, "intends": true, "hope": true, "hoping": true,
		"forward": true, "should": true, "might": true, "need": true, "needs": true,
	}
	enPast = map[string]bool{
		"did": true, "didn": true, "was": true, "wasn": true, "were": true, "weren": true,
		"had": true, "hadn": true, "been": true, "went": true, "saw": true, "met": true, "came": true,
		"ate": true, "got": true, "made": true, "took": true, "told": true, "said": true,
		"spent": true, "left": true, "bought": true, "felt": true, "thought": true,
		"heard": true, "found": true, "gave": true, "ran": true, "slept": true, "won": true,
		"lost": true, "sat": true, "kept": true, "brought": true, "sent": true, "paid": true,
		"forgot": true, "began": true, "drank": true, "drove": true, "flew": true,
		"swam": true, "wrote": true, "knew": true, "wore": true, "rode": true,
	}
	enNotPast = map[string]bool{
		"indeed": true, "speed": true, "exceed": true, "proceed": true, "succeed": true,
		"embed": true, "hundred": true, "excited": true, "interested": true,
		"supposed": true, "tired": true, "bored": true, "scared": true, "worried": true,
		"married": true, "stressed": true, "relaxed": true, "prepared": true,
	}
	enBe  = map[string]bool{"am": true, "m": true, "are": true, "re": true, "is": true, "s": true}
	enNot = map[string]bool{"thing": true, "nothing": true, "something": true, "anything": true,
		"everything": true, "morning": true, "evening": true, "spring": true, "during": true,
		"king": true, "ring": true, "bring": true, "sing": true, "string": true, "wedding": true,
		"amazing": true, "interesting": true, "boring": true, "exciting": true, "relaxing": true,
		"annoying": true, "surprising": true, "confusing": true, "tiring": true, "stunning": true}
)

// enPlan reports whether the English expression at s[i:] makes a plan in the
// clause s[cs:ce].
func enPlan(s string, cs, i, ce int, t tense) bool {
	w, k := prevWord(s, cs, i)
	if w == "for" || w == "on" {
		w, _ = prevWord(s, cs, k)
	}
	if w == "plan" || w == "plans" {
		return true
	}
	future := false
	prev, prev2 := "", ""
	for k := cs; k < ce; {
		if !isAlnum(s[k]) {
			k++
			continue
		}
		e := wordEnd(s, k)
		w := s[k:e]
		switch {
		case enPast[w] || len(w) >= 5 && strings.HasSuffix(w, "ed") && !enNotPast[w]:
			return false
		case enFuture[w],
			prev == "let" && (w == "s" || w == "us"),
			prev == "see" && w == "you",
			(prev == "t" || prev == "cannot") && w == "wait",
			(t == tAny || w == "going") && (enBe[prev] || enBe[prev2]) && isIng(w):
			future = true
		}
		prev, prev2, k = w, prev, e
	}
	return future
}

// isIng reports whether w is a present participle: five letters or more in
// -ing, enNot aside.
func isIng(w string) bool {
	return len(w) >= 5 && strings.HasSuffix(w, "ing") && !enNot[w]
}

// prevWord returns the ASCII word that ends before i, at or after cs (with
// only spaces in between), and its start; "" when there is none.
func prevWord(s string, cs, i int) (string, int) {
	j := i
	for j > cs && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > cs && isAlnum(s[k-1]) {
		k--
	}
	return s[k:j], k
}

// Chinese. A plan is one of:
//   - zhNear right after the expression, or after its 的 (周末的计划, 周末打算去
//     爬山), whatever the rest says;
//   - with the expression not attributive (not followed by 的) and the clause
//     not ending in 了 or 过 (its particles stripped: 周末去爬山了吧):
//     zhWords anywhere in the clause, before the expression too (我打算周末去
//     爬山, 周末要加班; zhNotWords aside: 我想起周末), or the clause ending in
//     吧 or 见 (周六去看电影吧, 周末见).
var (
	zhNear  = []string{"计划", "計劃", "計畫", "安排", "打算"}
	zhWords = []string{
		"打算", "准备", "準備", "计划", "計劃", "計畫", "安排", "预定", "預定",
		"想", "要", "将要", "將要", "会去", "會去", "一起", "约好", "約好", "有约", "有約",
	}
	zhNotWords = []string{
		"想起", "想到", "想念", "回想", "想法", "感想", "理想", "思想",
		"重要", "主要", "只要", "要是", "要不是",
	}
	zhTails = "吗嗎呢啊呀嘛哦哈啦吧" // particles stripped before the past is read
	zhPast  = []string{"了", "过", "過"}
	zhFinal = []string{"吧", "见", "見"}
)

// zhPlan reports whether the Chinese clause cl, of which rest follows the
// expression, makes the expression the time of a plan.
func zhPlan(cl, rest string) bool {
	if hasPrefixAny(strings.TrimPrefix(rest, "的"), zhNear) {
		return true
	}
	if strings.HasPrefix(rest, "的") {
		return false
	}
	end := strings.TrimRightFunc(rest, isSeparator)
	if t := strings.TrimRightFunc(end, func(r rune) bool {
		return isSeparator(r) || strings.ContainsRune(zhTails, r)
	}); hasSuffixAny(t, zhPast) {
		return false
	}
	return hasWord(cl, zhWords, zhNotWords) || hasSuffixAny(end, zhFinal)
}

// hasWord reports whether s holds one of words where it is not part of one of
// not (想 but not 想起).
func hasWord(s string, words, not []string) bool {
	for _, w := range words {
		for k := 0; ; {
			j := strings.Index(s[k:], w)
			if j < 0 {
				break
			}
			if !within(s, k+j, w, not) {
				return true
			}
			k += j + len(w)
		}
	}
	return false
}

// within reports whether the word w at s[at:] is part of one of not there.
func within(s string, at int, w string, not []string) bool {
	for _, n := range not {
		if o := strings.Index(n, w); o >= 0 && at >= o && strings.HasPrefix(s[at-o:], n) {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasSuffixAny(s string, ps []string) bool {
	_, ok := cutSuffixAny(s, ps)
	return ok
}

// cutSuffixAny cuts the first of ps that ends s.
func cutSuffixAny(s string, ps []string) (string, bool) {
	for _, p := range ps {
		if t, ok := strings.CutSuffix(s, p); ok {
			return t, true
		}
	}
	return s, false
}
