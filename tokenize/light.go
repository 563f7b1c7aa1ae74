package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ikawaha/kagome/v2/tokenizer"
)

// Lexicon is an Analyzer that knows more of its query terms than their
// spelling: which say nothing of a topic on their own, and which other index
// terms stand for one. The retriever's term coverage asks it (retriever
// Options.LightTerms, Options.Forms); its methods allocate nothing but
// Forms' answer, and are called once per message term, not per candidate.
type Lexicon interface {
	Analyzer
	// Light reports whether a query term is a function word or a light
	// verb: a word that matches whatever the memory is about (なる in
	// どうなった, 了 and 吗, 했어), so that it must never carry coverage
	// alone.
	Light(term string) bool
	// Forms returns the other index terms that stand for a query term, nil
	// when none do: a Korean one-syllable noun is indexed with its particle
	// (눈이 is one bigram), so 눈 stands for 눈이, 눈은, 눈을, ... The slice
	// is new on each call.
	Forms(term string) []string
}

// Light reports whether term is a function word or a light verb of
// Japanese, Chinese or Korean (Lexicon): Hangul terms by the list
// koreanLight, Han terms of one or two characters that are all Chinese
// function characters (了, 吗, 的, 是, 好: zhFunction), and Japanese terms
// by the IPA part of speech kagome gives the term alone (pronouns,
// dependent and suffix nouns, dependent verbs and adjectives, adnominals,
// conjunctions, interjections, prefixes: lightPOS) or, for the light verbs
// and adjectives the dictionary files as independent words, the list
// jaLight (なる, する, ある, いる, できる, 思う, 言う, ...).
func (kagomeAnalyzer) Light(term string) bool { return isLight(term) }

func isLight(term string) bool {
	r, _ := utf8.DecodeRuneInString(term)
	switch {
	case term == "":
		return false
	case unicode.Is(unicode.Hangul, r):
		return koreanLight(term)
	case allFunctionHan(term):
		return true
	case !strings.ContainsFunc(term, isKanaOrHan):
		return false
	}
	if jaLight(term) {
		return true
	}
	tok, err := loadKagome()
	if err != nil {
		return false
	}
	toks := tok.Analyze(term, tokenizer.Normal)
	if len(toks) != 1 || toks[0].Class == tokenizer.UNKNOWN {
		return false
	}
	pos, _ := toks[0].FeatureAt(0)
	sub, _ := toks[0].FeatureAt(1)
	return lightPOS(pos, sub)
}

func isKanaOrHan(r rune) bool {
	return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han)
}

// lightPOS reports whether an IPA part of speech (its first two features)
// is a function word's: 名詞-代名詞 (これ, 私), 名詞-非自立 (こと, もの,
// よう), 名詞-接尾 (さん, 的), 動詞-非自立 (しまう, くれる), 形容詞-非自立
// (ほしい), 連体詞 (この, その), 接続詞 (でも, だから), 感動詞 (うん, ああ),
// 接頭詞 (お, ご). Particles and auxiliary verbs never reach a query
// (droppedPOS).
func lightPOS(pos, sub string) bool {
	switch pos {
	case "連体詞", "接続詞", "感動詞", "接頭詞":
		return true
	case "名詞":
		return sub == "代名詞" || sub == "非自立" || sub == "接尾"
	case "動詞", "形容詞":
		return sub == "非自立"
	}
	return false
}

// jaLight reports whether a Japanese base form is a light verb, adjective
// or adverb the IPA dictionary files as independent: it says what happened
// (なる, する), not to what. てる, the spoken ている (してる, 出てる), is
// among them: in a message kagome tags it 動詞-非自立, but Light reads the
// term alone, which the dictionary files as an independent verb (照る);
// it says only that something goes on (最近どうしてる？), as いる does.
func jaLight(term string) bool {
	switch term {
	case "なる", "成る", "する", "為る", "ある", "有る", "いる", "居る", "てる", "できる", "出来る",
		"思う", "おもう", "言う", "いう", "やる", "くる", "来る", "いく", "行く", "みる", "見る",
		"おる", "しまう", "くれる", "もらう", "あげる", "くださる", "下さる", "いただく",
		"ない", "無い", "いい", "よい", "良い",
		"そう", "こう", "ああ", "もう", "まだ", "よく", "ちょっと", "とても":
		return true
	}
	return false
}

// zhFunction are the Chinese characters that are function words or light
// verbs on their own: aspect and mood particles (了, 吗, 呢, 吧, 的), the
// copula and common verbs (是, 有, 在, 去, 来, 说, 要, 会), pronouns (我, 你,
// 他), adverbs and conjunctions (不, 也, 就, 都, 很, 还, 又), measure 个 and
// the acknowledgements (好, 嗯, 哦).
const zhFunction = "了吗呢吧啊呀啦嘛么的是有在去来说要会我你他她它们这那个不也就都很还又没着过得把被给对好嗯哦"

// allFunctionHan reports whether term is one or two Han characters, each a
// Chinese function character (zhFunction): 了, 吗, 了吗, 好了, 我们.
func allFunctionHan(term string) bool {
	n := 0
	for _, r := range term {
		if n++; n > 2 || !strings.ContainsRune(zhFunction, r) {
			return false
		}
	}
	return n > 0
}

// koreanLight reports whether a Korean query term (a syllable or a syllable
// bigram) is a function word or an ending: pronouns and adverbs of one
// syllable (나, 너, 좀, 잘), the light verbs 하다, 있다, 없다, 되다 and their
// common endings (했어, 해요, 있어), and the pieces of endings and
// demonstratives (는데, 거야, 그런). The list is short on purpose: a content
// bigram wrongly held light only weighs less.
func koreanLight(term string) bool {
	switch term {
	case "나", "너", "저", "그", "이", "것", "거", "수", "때", "좀", "잘", "더", "안", "못", "또", "다",
		"왜", "꼭", "막", "참", "뭐", "네", "응", "음", "제", "내", "게", "걸", "건", "많", "같",
		"하다", "하고", "하는", "하면", "하지", "하게", "하니", "한다", "할까", "해서", "해요", "해야", "해도",
		"했어", "했다", "했지", "했는", "했던", "했고", "했을", "했네", "합니", "니다",
		"있어", "있다", "있는", "있고", "있었", "있지", "없어", "없다", "없는", "없고", "없었",
		"되다", "되는", "됐어", "됐다", "돼요", "되고", "되었", "었어", "았어", "였어", "었다", "았다",
		"어요", "아요", "에요", "예요", "이야", "거야", "거예", "건데", "는데", "인데", "은데", "네요",
		"그래", "그런", "그렇", "렇게", "이런", "저런", "이거", "그거", "저거", "이게", "그게",
		"우리", "나는", "너는", "내가", "네가", "제가", "저는", "나도", "너도",
		"정말", "진짜", "너무", "많이", "그냥", "근데", "그리", "리고", "같아", "같은", "같이",
		"싶어", "싶다", "세요", "주세", "어서", "아서", "지만", "는지":
		return true
	}
	return false
}

// Forms returns the index terms a Korean one-syllable query term stands
// for (Lexicon): the syllable with each particle it may take, as the
// index's first bigram of the word holds it (눈: 눈이 눈은 눈을 눈과 눈으
// 눈에 눈의 눈도 눈만; 비: 비가 비는 비를 비와 비로 비랑 비에 비의 비도 비만),
// the subject, topic, object and "and" particles chosen by whether the
// syllable ends in a consonant, as Korean chooses them. Any other term has
// none.
func (kagomeAnalyzer) Forms(term string) []string {
	r, size := utf8.DecodeRuneInString(term)
	if size != len(term) || !isHangulSyllable(r) {
		return nil
	}
	ps := particlesOf(r)
	out := make([]string, 0, utf8.RuneCountInString(ps))
	for _, p := range ps {
		out = append(out, term+string(p))
	}
	return out
}

// The particles a one-syllable noun takes, by its last sound: after a
// vowel 가 는 를 와 로 랑, after a consonant 이 은 을 과 and 으 (으로, 이랑's
// 이 is 이), after ㄹ those and 로 (물로); after either 에 (에서, 에게) 의 도 만.
const (
	vowelParticles     = "가는를와로랑에의도만"
	consonantParticles = "이은을과으에의도만"
	rieulParticles     = "이은을과로에의도만"
	finalRieul         = 8 // ㄹ, the index of a syllable's final consonant
)

func isHangulSyllable(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// nounParticle reports whether the syllable p is a particle the
// one-syllable noun n takes (Forms): 눈은, 비가, 집에, 물을, not 나이
// (이 follows a consonant) nor 사과.
func nounParticle(n, p rune) bool {
	return isHangulSyllable(n) && p != '으' && strings.ContainsRune(particlesOf(n), p)
}

// particlesOf returns the particles the syllable n takes as a noun, by its
// last sound (its final consonant: (n - 가) mod 28, 0 for none).
func particlesOf(n rune) string {
	switch final := (n - 0xAC00) % 28; {
	case final == finalRieul:
		return rieulParticles
	case final != 0:
		return consonantParticles
	}
	return vowelParticles
}
