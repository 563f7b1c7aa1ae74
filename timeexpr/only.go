package timeexpr

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// genericWords are the Japanese and Chinese words that carry no topic in a
// question about a time window: interrogatives (何, どんな), talking and
// happening (話, 話した, 会話, 続き, あった, 聊, 发生), remembering and asking
// (覚えてる, 教えて, 记得), people (私, 僕, 我们), interjections (ねえ, そういえば), particles and auxiliaries
// (の, は, を, た, っけ, でした, か, ね, 了, 吗, 的). Text is segmented greedily,
// longest word first; every segment must be one of these words, an English
// word of genericEnglish, or a separator (space, punctuation, symbol, emoji,
// ー), else the text carries a topic.
var genericWords = []string{
	// Interrogatives.
	"何", "なに", "なん", "何か", "なにか", "どんな", "どういう", "どう", "どこまで",
	// Talking.
	"話", "話し", "話す", "話した", "話して", "話そう", "はなし", "はなした", "はなして",
	"喋った", "喋って", "しゃべった", "しゃべって", "会話", "雑談", "内容", "話題",
	"続き", "つづき", "やりとり", "やり取り", "言った", "言って", "いった", "いって",
	// Happening and doing.
	"あった", "ありました", "あったの", "起きた", "出来事", "こと", "事",
	"した", "して", "しました", "してた",
	// Remembering and asking.
	"覚えてる", "覚えて", "おぼえてる", "おぼえて", "憶えてる", "憶えて",
	"いる", "います", "ます", "ました", "まし",
	"教えて", "おしえて", "思い出して", "思い出せる", "振り返って", "まとめて",
	"ください", "くれる", "くれない", "ちょうだい", "もう一度", "また", "ちょっと",
	// People.
	"私", "わたし", "僕", "ぼく", "俺", "おれ", "私たち", "僕ら", "僕たち", "俺ら",
	"二人", "ふたり", "君", "きみ", "あなた", "一緒に", "一緒",
	// Interjections.
	"ねえ", "ねぇ", "えっと", "ところで", "そういえば", "さ",
	// Particles and auxiliaries.
	"た", "だ", "だった", "でした", "です", "っけ", "だっけ", "か", "かな", "かしら",
	"ね", "よ", "な", "の", "を", "は", "が", "に", "で", "と", "も", "って", "っていう",
	"んだ", "ん", "けど",
	// Chinese.
	"我们", "我們", "咱们", "咱們", "我", "你", "聊", "聊了", "聊过", "聊過", "聊天",
	"说", "說", "谈", "談", "讲", "講", "了", "过", "過", "什么", "什麼", "啥",
	"吗", "嗎", "呢", "吧", "的", "都", "些", "哪些", "记得", "記得", "还", "還",
	"内容", "话题", "發生", "发生", "事情", "有", "做", "告诉", "告訴", "一下",
	"那", "那个", "那個",
	// Korean.
	"우리", "내가", "나", "너", "네가", "무슨", "뭐", "뭘", "무엇", "얘기", "이야기", "대화", "말",
	"했지", "했어", "했었지", "했더라", "했던", "했는지", "했었어", "한", "하던", "나눴지", "나눴어",
	"있었지", "있었어", "있었던", "일", "기억나", "기억해", "기억", "알려줘", "알려 줘", "다시",
	"에", "에는", "은", "는", "이", "가", "을", "를", "의", "도", "랑", "하고", "거", "것", "좀",
	"혹시", "그", "그때",
}

// genericEnglish are the English words that carry no topic; text is split
// into ASCII alphanumeric words, so "what's" is "what" and "s".
var genericEnglish = map[string]struct{}{
	"what": {}, "whats": {}, "which": {}, "where": {}, "did": {}, "do": {}, "does": {},
	"done": {}, "we": {}, "us": {}, "you": {}, "i": {}, "me": {}, "my": {}, "our": {},
	"your": {}, "talk": {}, "talked": {}, "talking": {}, "chat": {}, "chatted": {},
	"chatting": {}, "discuss": {}, "discussed": {}, "say": {}, "said": {}, "speak": {},
	"spoke": {}, "tell": {}, "told": {}, "about": {}, "remember": {}, "recall": {},
	"remind": {}, "happen": {}, "happened": {}, "was": {}, "were": {}, "is": {},
	"are": {}, "be": {}, "been": {}, "it": {}, "that": {}, "the": {}, "a": {},
	"an": {}, "of": {}, "on": {}, "in": {}, "at": {}, "during": {}, "over": {},
	"from": {}, "and": {}, "any": {}, "anything": {}, "something": {}, "things": {},
	"thing": {}, "stuff": {}, "topic": {}, "topics": {}, "conversation": {},
	"conversations": {}, "can": {}, "could": {}, "would": {}, "so": {}, "again": {},
	"leave": {}, "left": {}, "off": {}, "continue": {}, "please": {}, "hey": {},
	"btw": {},
	"s":   {}, "re": {}, "ve": {}, "d": {}, "ll": {}, "m": {},
}

// genericIndex maps a generic word's first rune to the words starting with
// it, longest first. It is built once and never written afterwards.
var genericIndex = func() map[rune][]string {
	idx := make(map[rune][]string)
	for _, w := range genericWords {
		r, _ := utf8.DecodeRuneInString(w)
		idx[r] = append(idx[r], w)
	}
	for _, ws := range idx {
		slices.SortStableFunc(ws, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	}
	return idx
}()

// onlyGeneric reports whether normalized text s consists of generic words
// and separators only.
func onlyGeneric(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf && isAlnum(byte(r)) {
			e := wordEnd(s, i)
			if _, ok := genericEnglish[s[i:e]]; !ok {
				return false
			}
			i = e
			continue
		}
		if isSeparator(r) {
			i += size
			continue
		}
		n := 0
		for _, w := range genericIndex[r] {
			if strings.HasPrefix(s[i:], w) {
				n = len(w)
				break
			}
		}
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}

// isSeparator reports whether r carries no content: spaces, punctuation,
// symbols (emoji included), format and combining characters, the prolonged
// sound mark ー and invalid UTF-8.
func isSeparator(r rune) bool {
	if r == 'ー' || r == utf8.RuneError {
		return true
	}
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) ||
		unicode.Is(unicode.Cf, r) || unicode.IsMark(r)
}
