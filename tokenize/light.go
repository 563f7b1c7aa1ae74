package tokenize

import (
	"slices"
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
	// (눈이 is one bigram), so 눈 stands for 눈이, 눈은, 눈을, ...; an English
	// word for its irregular forms (eat for ate and eaten). The slice is
	// new on each call.
	Forms(term string) []string
}

// Light reports whether term is a function word or a light verb of
// Japanese, Chinese, Korean or English (Lexicon): Hangul terms by the list
// koreanLight and the syllables that begin only endings and light verbs'
// forms (koreanEnding: 었지, 겠다, 갔어), and terms of bare jamo (ㅋㅋ, ㅠㅠ);
// Han terms of one or two characters that are all Chinese function
// characters (了, 吗, 的, 是, 好: zhFunction), Chinese bigrams with a
// sentence-final particle at either end (冷啊, 雨吗: zhParticle), the time
// characters alone (今, 天, 年, 月, 日: zhTimeChar) and the list zhLight
// (觉得, 知道, 东西); Japanese terms by the IPA part of speech kagome gives
// the term alone (pronouns, dependent and suffix nouns, dependent and
// suffix verbs and adjectives, adnominals, conjunctions, interjections,
// prefixes: lightPOS) or, for the light verbs, adjectives and adverbs the
// dictionary files as independent words, the list jaLight (なる, する, ある,
// いる, できる, 思う, 言う, ちゃう, とく, 始める, めっちゃ, ...); and English
// terms by the list englishLight (get, went, someth, realli, lol).
func (kagomeAnalyzer) Light(term string) bool { return isLight(term) }

func isLight(term string) bool {
	r, _ := utf8.DecodeRuneInString(term)
	switch {
	case term == "":
		return false
	case isASCIIWord(term):
		return englishLight(term)
	case unicode.Is(unicode.Hangul, r):
		return koreanLight(term) || koreanEnding(term) || allJamo(term)
	case allFunctionHan(term), zhParticle(term), zhTimeChar(term), zhLight(term):
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
// よう), 名詞-接尾 (さん, 的), 名詞-数 (一, 三: 一日中 is 一 日 中, and a
// count is no topic), 動詞-非自立 (しまう, くれる), 動詞-接尾
// (られる, れる, させる's せる), 形容詞-非自立 (ほしい), 形容詞-接尾
// (っぽい), 連体詞 (この, その), 接続詞 (でも, だから), 感動詞 (うん, ああ),
// 接頭詞 (お, ご). Particles and auxiliary verbs never reach a query
// (droppedPOS).
func lightPOS(pos, sub string) bool {
	switch pos {
	case "連体詞", "接続詞", "感動詞", "接頭詞":
		return true
	case "名詞":
		return sub == "代名詞" || sub == "非自立" || sub == "接尾" || sub == "数"
	case "動詞", "形容詞":
		return sub == "非自立" || sub == "接尾"
	}
	return false
}

// jaLight reports whether a Japanese base form is a light verb, adjective
// or adverb the IPA dictionary files as independent: it says what happened
// (なる, する), not to what. てる, the spoken ている (してる, 出てる), is
// among them: in a message kagome tags it 動詞-非自立, but Light reads the
// term alone, which the dictionary files as an independent verb (照る);
// it says only that something goes on (最近どうしてる？), as いる does. So
// are the other spoken auxiliaries kagome gives as verbs: でる (読んでる, the
// ている after ん), ちゃう and じゃう (してしまう: 寝ちゃった, 飲んじゃった), とく
// and おく (しておく: 予約しといた), せる (行かせる), いける (行かなきゃいけない);
// the verbs and adjectives that follow a verb's stem (住みやすい, 読みにくい,
// しすぎる), and the verbs that say only that something begins, goes on or
// ends (始める, 続ける, 終わる: ボルダリング始めた is about bouldering; held
// light, 始める still counts beside it, and 仕事終わった alone no longer
// matches every memory of finishing something). Also the hedges,
// intensifiers and vague words of chat (めっちゃ, すごく, やばい, 全然, やっぱり,
// たぶん, 最近, 感じ, 気), the words of knowing and remembering that a
// question to a companion wraps its topic in (知る, わかる, 覚える: 覚えてる？),
// the suffixes kagome files as words (ちゃん, たち) and 笑, the laugh of chat.
// Their kanji content verbs stay content: 出る, 置く, 安い (やすい in kana is
// held light: 住みやすい is far more common in chat than 安い spelled so).
func jaLight(term string) bool {
	switch term {
	case "なる", "成る", "する", "為る", "ある", "有る", "いる", "居る", "てる", "できる", "出来る",
		"思う", "おもう", "言う", "いう", "やる", "くる", "来る", "いく", "行く", "みる", "見る",
		"おる", "しまう", "くれる", "もらう", "あげる", "くださる", "下さる", "いただく",
		"ない", "無い", "いい", "よい", "良い",
		"そう", "こう", "ああ", "もう", "まだ", "よく", "ちょっと", "とても",
		// spoken auxiliaries, and verbs and adjectives after a verb's stem
		"でる", "ちゃう", "じゃう", "とく", "おく", "せる", "いける", "行ける",
		"やすい", "にくい", "すぎる", "過ぎる",
		"始める", "始まる", "続ける", "続く", "終わる", "終える",
		// knowing and remembering
		"知る", "わかる", "分かる", "覚える", "思い出す", "感じる", "感じ", "気",
		// hedges, intensifiers and vague adverbs
		"めっちゃ", "めちゃ", "めちゃくちゃ", "すごい", "すごく", "やばい", "マジ", "本当", "ほんとに",
		"全然", "結構", "かなり", "少し", "ずっと", "やっと", "結局", "やっぱり", "やっぱ", "やはり",
		"とりあえず", "たぶん", "多分", "きっと", "ちゃんと", "一応", "別に", "特に", "絶対",
		"さっき", "そろそろ", "いつも", "最近", "なんとか", "いろいろ", "色々",
		"ちゃん", "たち", "笑":
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

// zhParticles are the Chinese sentence-final particles (啊, 吗, 呢, 吧, 呀,
// 啦, 嘛, 哦, 呗, 哇) and the aspect particle 了.
const zhParticles = "啊吗呢吧呀啦嘛哦呗哇了"

// zhParticle reports whether term is a Chinese bigram with a particle
// (zhParticles) at either end: 冷啊, 雨吗, 病了, 了日, pieces of a phrase,
// whose other character is a term of its own. Held light, not left out: a
// few are words (酒吧, 了解), and a message asked before (会下雨吗) still
// meets its bigram. Japanese words of 了 (了解, 終了, 完了) are light too:
// they say that something ended or is understood, as 終わる does.
func zhParticle(term string) bool {
	first, n := utf8.DecodeRuneInString(term)
	last, m := utf8.DecodeRuneInString(term[n:])
	return n+m == len(term) && unicode.Is(unicode.Han, first) && unicode.Is(unicode.Han, last) &&
		(strings.ContainsRune(zhParticles, first) || strings.ContainsRune(zhParticles, last))
}

// zhTimeChar reports whether term is one of the Han characters of time
// words, alone: 今, 天, 年, 月, 日. Chinese gives them as terms from 今天,
// 明天, 去年, 这个月, 生日, where the bigram carries the word; alone they say
// little (天 is also 天气's, 日 日本's); so they do in Japanese, where kagome
// gives 今 (now) and the 日 or 月 of a date (土曜日: 土曜 日). Their bigrams
// are left as they are: 今天 is not light, as today and 今日 are not.
func zhTimeChar(term string) bool {
	switch term {
	case "今", "天", "年", "月", "日":
		return true
	}
	return false
}

// zhLight reports whether term is a Chinese word of thinking, knowing or
// connecting that fits any topic: 觉得, 知道, 记得, 感觉, 东西 (thing), 事情,
// 时候, 已经, 然后, 因为, 所以, 但是, 可是, 其实, 真的, 可能, 应该, 一下, 有点, 一点.
func zhLight(term string) bool {
	switch term {
	case "觉得", "知道", "记得", "感觉", "东西", "事情", "时候", "已经", "然后", "因为",
		"所以", "但是", "可是", "其实", "真的", "可能", "应该", "一下", "有点", "一点":
		return true
	}
	return false
}

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
// common endings (했어, 해요, 있어), the pieces of endings, the copula and
// demonstratives (는데, 데요, 거야, 이었, 이야, 그런, 구나, 잖아), the
// questions of shall (할까, 을까, 갈까), the light verbs 가다, 오다, 보다,
// 주다, 알다 (갈까, 봐요, 알겠), the words of remembering (기억, 기억나: 억나)
// and chat's adverbs and acknowledgements (요즘, 그때, 완전, 계속, 괜찮,
// 고마). The list is short on purpose: a content bigram wrongly held light
// only weighs less.
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
		"싶어", "싶다", "세요", "주세", "어서", "아서", "지만", "는지",
		// the copula and endings
		"이었", "이였", "이에", "이라", "을까", "갈까", "볼까", "올까", "줄까", "될까", "까요", "나요",
		"할래", "할게", "게요", "데요", "던데", "더라", "거든", "든요", "구나", "군요", "니까", "된다", "되면",
		"돼", "돼서", "해줘", "해봐", "봐요", "알겠", "알았", "알아",
		// remembering, adverbs and acknowledgements
		"기억", "억나", "억해", "그때", "요즘", "완전", "엄청", "되게", "약간", "계속", "아직", "벌써", "다시",
		"혹시", "아마", "시작", "작했", "작하", "고마", "마워", "괜찮", "찮아", "감사", "안녕":
		return true
	}
	return false
}

// koreanEndingStarts are the syllables that begin no Korean word, only the
// endings after a stem and the forms of light verbs: the past 었, 았, 였
// (먹었지: 었지; 어디였지: 였지) and 셨, the future 겠 (겠다), 잖 (잖아); and
// the past of 하다, 되다, 가다, 오다, 보다, 주다 (했, 됐, 갔, 왔, 봤, 줬),
// with 있다, 없다, 싶다, 같다 (있, 없, 싶, 같), which begin nothing else.
const koreanEndingStarts = "었았였셨겠잖했됐갔왔봤줬있없싶같"

// koreanEnding reports whether a Korean bigram begins with a syllable of
// koreanEndingStarts: an ending (었지, 았던, 였지, 겠다, 셨어) or a light
// verb's form (갔었, 있을, 봤는데: 봤는).
func koreanEnding(term string) bool {
	first, n := utf8.DecodeRuneInString(term)
	_, m := utf8.DecodeRuneInString(term[n:])
	return m > 0 && n+m == len(term) && strings.ContainsRune(koreanEndingStarts, first)
}

// allJamo reports whether term is made of Hangul letters alone, no
// syllable: ㅋㅋ and ㅎㅎ (laughing), ㅠㅠ (crying), ㅇㅇ (yes), which NFKC
// writes as conjoining jamo.
func allJamo(term string) bool {
	for _, r := range term {
		if !(r >= 0x1100 && r <= 0x11FF || r >= 0x3130 && r <= 0x318F || r >= 0xA960 && r <= 0xA97F || r >= 0xD7B0 && r <= 0xD7FF) {
			return false
		}
	}
	return true
}

// Forms returns the index terms a query term stands for (Lexicon). A
// Korean one-syllable term stands for the syllable with each particle it
// may take, as the index's first bigram of the word holds it (눈: 눈이 눈은
// 눈을 눈과 눈으 눈에 눈의 눈도 눈만; 비: 비가 비는 비를 비와 비로 비랑 비에 비의
// 비도 비만), the subject, topic, object and "and" particles chosen by
// whether the syllable ends in a consonant, as Korean chooses them. Under
// the stemming analyzers, an English term stands for the other stems of
// its word's irregular forms, from WordNet's exception lists
// (english-forms.txt): eat for ate and eaten, ate for eat and eaten, mous
// for mice, good for better and best, and in a stored "Biscuit ate a sock"
// a message's "eat" finds ate. Any other term has none.
func (a kagomeAnalyzer) Forms(term string) []string {
	if isASCIIWord(term) {
		if !a.stem {
			return nil // the table is of stems
		}
		return slices.Clone(englishForms()[term])
	}
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
