// Package smalltalk decides whether a chat message needs long-term memory at
// all, so that greetings, thanks and aizuchi (おはよう, ありがとう〜😊, うんうん,
// OK, thanks!, 嗯嗯) skip retrieval while anything with a memory cue or a
// topic does not.
//
// NeedsMemory works in three plain steps over package-level word lists,
// without regular expressions:
//
//  1. Memory cue. The text is normalized (timeexpr.Normalize: NFKC,
//     lower-case) and searched for a
//     cue word of cueWords (覚えてる, この前, あの時, remember, last time,
//     还记得, 上次, ...; English cues only as whole words). A cue means memory,
//     however short the message: 覚えてる？ needs memory.
//  2. Small talk. The normalized text is stripped of spaces, punctuation,
//     symbols and emoji, format and combining characters and the long-vowel
//     marks ー 〜 ~, and the phrases of smallTalkPhrases (おはよう, ありがとう,
//     うん, なるほど, ok, thanks, good morning, 好的, 谢谢, ...) are removed from
//     it greedily, longest first, left to right. A filler (fillers: ね, よ, っ,
//     w, 啊, ...) and a character repeating the one before it (ありがとうううう,
//     yesss, www) are removed too. Whatever else remains is a topic, and a
//     topic needs memory: おはよう、今日は健康診断 needs memory, はい does not.
//  3. Time expression. Text made only of small talk is finally checked with
//     timeexpr.Parse, and a time window is a memory cue. (A time expression
//     such as 昨日 or last week is not small talk, so step 2 has already
//     found it to be a topic; Cue reports it as the cue.)
//
// Cue reports the cue that made a message need memory, for the retrieval
// trace: the leftmost of the cue words and the time expression found by
// timeexpr.Parse.
//
// The language of a message matters to the time expression only (which
// language's plan words a clause of Han alone is read with: package lang's
// classifier decides), so NeedsMemoryLang and CueLang pass the caller's
// hint on to timeexpr.ParseLang.
package smalltalk

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/timeexpr"
)

// cueWords are the memory cues, in normalized form. CJK cues match anywhere;
// cues made of ASCII letters match whole words only ("again", not "against").
var cueWords = []string{
	// Japanese.
	"覚えてる", "覚えて", "憶えて", "おぼえて", "思い出", "前に", "この前", "こないだ",
	"この間", "このあいだ", "以前", "前回", "あの時", "あのとき", "あの頃", "あのころ",
	"あの日", "あの話", "あの件", "例の", "先日", "続き", "つづき", "言ってた",
	"言ったよね", "話したよね", "話してた", "前も", "昔", "最近", "っけ",
	// English.
	"remember", "remembered", "remembering", "recall", "recalled", "last time",
	"before", "again", "earlier", "previously", "the other day", "you said",
	"you told", "we talked", "we discussed", "mentioned", "back then", "that time",
	"where were we",
	// Chinese.
	"还记得", "還記得", "记得", "記得", "上次", "上回", "之前", "以前", "那时", "那時",
	"那天", "那次", "刚才", "剛才", "继续", "繼續", "说过", "說過",
	// Korean.
	"기억나", "기억해", "기억하", "기억 나", "지난번", "저번에", "저번", "그때", "그 때", "예전에",
	"전에", "아까", "말했잖아", "얘기했잖아", "말했던", "얘기했던", "더라",
}

// smallTalkPhrases are the greetings, thanks, acknowledgements and aizuchi
// that carry no memory cue. They are stripped like the text (see strip) when
// the index is built, so "good morning" matches "good  morning!!" and
// サンキュー matches サンキュ〜.
var smallTalkPhrases = []string{
	// Japanese greetings.
	"おはよう", "おはよ", "おはようございます", "おっは", "こんにちは", "こんにちわ", "こんちは",
	"こんばんは", "こんばんわ", "おやすみ", "おやすみなさい", "ただいま", "おかえり",
	"おかえりなさい", "いってきます", "いってらっしゃい", "またね", "また明日", "またあした",
	"じゃあね", "じゃね", "ばいばい", "バイバイ", "よろしく", "よろしくお願いします",
	"お疲れ", "お疲れ様", "お疲れさま", "おつかれ", "おつかれさま", "おつ", "はじめまして",
	"久しぶり", "ひさしぶり", "お久しぶり",
	// Japanese thanks and apologies.
	"ありがとう", "ありがと", "ありがとうございます", "ありがとうございました", "あざす",
	"あざっす", "サンキュー", "さんきゅ", "どうも", "どういたしまして", "すみません",
	"ごめん", "ごめんなさい",
	// Japanese acknowledgements and aizuchi.
	"うん", "ええ", "はい", "いいえ", "いや", "そう", "そうだね", "そうだよね", "そうだよ",
	"そうなんだ", "そうなの", "そうか", "そっか", "なるほど", "了解", "了解です",
	"りょうかい", "りょ", "承知しました", "承知", "おけ", "おっけー", "オッケー", "オーケー",
	"いいね", "いいよ", "ほんと", "ほんとに", "本当", "確かに", "たしかに", "へえ", "へー",
	"ふーん", "ふむ", "すごい", "やった", "わかった", "分かった", "わかりました",
	"分かりました", "おお", "わあ", "わーい", "まじか", "マジか", "まじで", "マジで", "ほう",
	"だね", "だよね", "ですね", "です", "ます", "ございます", "笑", "草", "w",
	// English.
	"ok", "okay", "okey", "okie", "k", "kk", "thanks", "thank you", "thanks a lot",
	"thank you so much", "thx", "ty", "tysm", "hi", "hello", "hey", "heya", "hiya", "yo",
	"hi there", "hello there", "good morning", "morning", "good afternoon",
	"good evening", "good night", "goodnight", "night", "nite", "gn", "gm", "yes", "yeah",
	"yep", "yup", "ya", "yea", "no", "nope", "sure", "cool", "nice", "great", "awesome",
	"good", "lol", "lmao", "haha", "ha", "hehe", "hmm", "hm", "oh", "ah", "wow", "i see",
	"got it", "sounds good", "alright", "all right", "np", "no problem", "welcome",
	"you're welcome", "bye", "goodbye", "see you", "see ya", "cya", "true", "right",
	"indeed", "mhm", "uh huh", "so", "and you",
	// Chinese.
	"嗯", "好的", "好", "好吧", "谢谢", "謝謝", "谢啦", "多谢", "你好", "您好", "早", "早上好",
	"早安", "午安", "晚上好", "晚安", "哈哈", "哈", "对", "對", "对的", "是的", "是", "行",
	"可以", "知道了", "明白", "明白了", "再见", "再見", "拜拜", "嘿", "收到", "没问题",
	"谢谢你", "谢谢您", "谢了", "不客气", "不用谢", "嗯嗯", "好滴", "好哒", "晚安啦",
	// Korean.
	"안녕", "안녕하세요", "안녕하십니까", "안뇽", "하이", "반가워", "반가워요", "반갑습니다",
	"좋은 아침", "잘 자", "잘자", "잘 자요", "잘자요", "굿모닝", "굿나잇", "잘 가", "잘가",
	"또 봐", "또 만나", "다음에 봐", "고마워", "고마워요", "고맙습니다", "감사합니다", "감사해요",
	"땡큐", "미안", "미안해", "미안해요", "죄송합니다", "죄송해요", "천만에요", "응", "웅", "네",
	"넹", "넵", "예", "아니", "아니요", "아뇨", "그래", "그래요", "그렇구나", "그렇군요", "그치",
	"맞아", "맞아요", "알겠어", "알겠어요", "알겠습니다", "알았어", "알았어요", "오케이", "좋아",
	"좋아요", "좋네", "좋다", "대박", "헐", "와", "우와", "오", "아하", "음", "흠", "ㅇㅇ", "ㅇㅋ",
	"ㅋ", "ㅎ", "ㅠ", "ㅜ",
}

// fillers are single characters that may be left over around small talk
// (おはよね, うんうんっ, www, 好的啊) without making a topic.
const fillers = "ねよなさわぞぜのんっぁぃぅぇぉゃゅょゎあいうえおッァィゥェォw啊呀哦噢呢吧啦嘛哇"

// cueIndex and phraseIndex map a first rune to the cues and the stripped
// phrases starting with it, longest first. They are built once and never
// written afterwards.
var (
	cueIndex    = index(cueWords, timeexpr.Normalize)
	phraseIndex = index(smallTalkPhrases, func(s string) string { return string(strip(nil, timeexpr.Normalize(s))) })
)

// index groups the normalized words by first rune, longest first.
func index(words []string, norm func(string) string) map[rune][]string {
	idx := make(map[rune][]string)
	for _, w := range words {
		w = norm(w)
		r, _ := utf8.DecodeRuneInString(w)
		if w != "" && !slices.Contains(idx[r], w) {
			idx[r] = append(idx[r], w)
		}
	}
	for _, ws := range idx {
		slices.SortStableFunc(ws, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	}
	return idx
}

// cueNow is the fixed instant against which time expressions are detected: a
// Sunday late in December, when every past-oriented expression timeexpr knows
// (今週末, この冬, 今週の土曜, クリスマス) has begun, so detection does not depend
// on the day the program runs.
var cueNow = time.Date(2025, 12, 28, 12, 0, 0, 0, time.UTC)

// NeedsMemory reports whether text needs long-term memory: false for empty
// text and for greetings, thanks, short acknowledgements and aizuchi without
// a memory cue (おはよー！！, ありがとう〜😊, うんうん, OK, 👍), true for
// anything with a memory cue (覚えてる？, last time, 上次) or a topic
// (おはよう、今日は健康診断, ok google). See the package documentation for the
// rules.
func NeedsMemory(text string) bool { return NeedsMemoryLang(text, lang.Other) }

// NeedsMemoryLang is NeedsMemory for a text whose language the caller knows
// where its script does not tell (hint, as lang.Detect takes it: a
// request's Lang). The hint reaches the last step, the time expression
// (timeexpr.ParseLang); the word lists hold every language's words at once
// and need none.
func NeedsMemoryLang(text string, hint lang.Language) bool {
	s := timeexpr.Normalize(text)
	if _, _, ok := findCue(s); ok {
		return true
	}
	if !isSmallTalk(s) {
		return true
	}
	_, ok := timeexpr.ParseLang(s, cueNow, time.UTC, hint) // s is normalized: no second copy
	return ok
}

// Cue returns the memory cue of text, as it appears in the normalized (NFKC,
// lower-cased) text: the leftmost of a cue word (覚えてる, last time, 上次) and
// a time expression (先週, yesterday; the longer one when both start at the
// same place). It reports false when text has no memory cue, which does not
// mean NeedsMemory is false: a topic alone needs memory too.
func Cue(text string) (string, bool) { return CueLang(text, lang.Other) }

// CueLang is Cue for a text whose language the caller knows where its
// script does not tell (hint, as NeedsMemoryLang takes it).
func CueLang(text string, hint lang.Language) (string, bool) {
	s := timeexpr.Normalize(text)
	at, cue, ok := findCue(s)
	if w, found := timeexpr.ParseLang(s, cueNow, time.UTC, hint); found {
		if i := strings.Index(s, w.Expr); i >= 0 && (!ok || i < at || i == at && len(w.Expr) > len(cue)) {
			return w.Expr, true
		}
	}
	return cue, ok
}

// CueWord returns the leftmost (then longest) cue word of text, as it
// appears in the normalized text, and whether there is one: Cue without the
// time expressions, the words by which a person asks the companion to
// remember (覚えてる, っけ, last time, 上次, 저번에).
func CueWord(text string) (string, bool) {
	_, cue, ok := findCue(timeexpr.Normalize(text))
	return cue, ok
}

// findCue returns the leftmost (then longest) cue word in normalized s and
// its offset.
func findCue(s string) (at int, cue string, ok bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf && isAlnum(byte(r)) && i > 0 && isAlnum(s[i-1]) {
			i += size // inside an ASCII word
			continue
		}
		for _, c := range cueIndex[r] {
			if !strings.HasPrefix(s[i:], c) {
				continue
			}
			end := i + len(c)
			if isAlnum(c[len(c)-1]) && end < len(s) && isAlnum(s[end]) {
				continue // an ASCII cue must end a word
			}
			return i, c, true
		}
		i += size
	}
	return 0, "", false
}

// IsSmallTalk reports whether s, a text as timeexpr.Normalize gives it, is
// nothing but small-talk phrases, fillers and repeated characters: no cue
// or time expression is looked for (NeedsMemory's other steps). For a
// caller that has normalized the text already (package salience).
func IsSmallTalk(normalized string) bool { return isSmallTalk(normalized) }

// isSmallTalk reports whether normalized s is nothing but small-talk phrases,
// fillers, repeated characters and stripped characters.
func isSmallTalk(s string) bool {
	var buf [256]byte
	t := strip(buf[:0], s)
	var prev rune
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRune(t[i:])
		n := 0
		for _, p := range phraseIndex[r] {
			if len(t)-i >= len(p) && string(t[i:i+len(p)]) == p {
				n = len(p)
				break
			}
		}
		switch {
		case n > 0:
			i += n
			prev, _ = utf8.DecodeLastRune(t[:i])
		case r == prev || strings.ContainsRune(fillers, r):
			i += size
			prev = r
		default:
			return false
		}
	}
	return true
}

// strip appends to dst the runes of s that can carry content: it drops
// spaces, punctuation, symbols (emoji included), format characters (zero
// width joiner), combining marks (variation selectors), the long-vowel marks
// ー 〜 ~ and invalid UTF-8.
func strip(dst []byte, s string) []byte {
	for _, r := range s {
		if r == 'ー' || r == '〜' || r == '~' || r == utf8.RuneError ||
			unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) ||
			unicode.Is(unicode.Cf, r) || unicode.IsMark(r) {
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

func isAlnum(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
