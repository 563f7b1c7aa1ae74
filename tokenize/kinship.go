package tokenize

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ikawaha/kagome-dict/dict"
	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"
)

// kinship maps the everyday and dialect words for family members, which the
// IPA dictionary splits or does not know (おかん: おか + ん, read as the verb
// おく; じいちゃん has no synonym), to the standard word the synonym table
// knows (母: 母親, ママ, 母さん, ...). The CJK analyzer segments them as one
// word with a kagome user dictionary and indexes and queries the standard
// word, so that おかん and 母親 meet. Words that begin longer ones (おとう of
// おとうと, 弟) are left out.
var kinship = map[string]string{
	"おかん": "母", "かあちゃん": "母", "かーちゃん": "母", "母ちゃん": "母", "お母ちゃん": "母",
	"おかあちゃん": "母", "お母さん": "母", "おかあさん": "母", "母さん": "母", "かあさん": "母",
	"おふくろ": "母", "お袋": "母",
	"おとん": "父", "とうちゃん": "父", "とーちゃん": "父", "父ちゃん": "父", "お父ちゃん": "父",
	"おとうちゃん": "父", "お父さん": "父", "おとうさん": "父", "父さん": "父", "とうさん": "父",
	"おやじ": "父", "親父": "父",
	"じいちゃん": "祖父", "じーちゃん": "祖父", "じっちゃん": "祖父", "おじいちゃん": "祖父",
	"爺ちゃん": "祖父", "お爺ちゃん": "祖父", "おじいさん": "祖父", "お祖父さん": "祖父", "祖父ちゃん": "祖父",
	"ばあちゃん": "祖母", "ばーちゃん": "祖母", "ばっちゃん": "祖母", "おばあちゃん": "祖母",
	"婆ちゃん": "祖母", "お婆ちゃん": "祖母", "おばあさん": "祖母", "お祖母さん": "祖母", "祖母ちゃん": "祖母",
	"にいちゃん": "兄", "兄ちゃん": "兄", "お兄ちゃん": "兄", "おにいちゃん": "兄",
	"ねえちゃん": "姉", "姉ちゃん": "姉", "お姉ちゃん": "姉", "おねえちゃん": "姉",
}

// kinshipPOS is the part of speech of the user dictionary's words.
const kinshipPOS = "名詞"

// kagomeKinship is the tokenizer of the CJK analyzer's Japanese: the IPA
// dictionary (shared with loadKagome's) and a user dictionary of kinship's
// words. Loaded once, read only after.
var kagomeKinship = sync.OnceValues(func() (*tokenizer.Tokenizer, error) {
	if _, err := loadKagome(); err != nil { // the IPA dictionary, or its error
		return nil, err
	}
	var b strings.Builder
	for w := range kinship {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", w, w, w, kinshipPOS)
	}
	recs, err := dict.NewUserDicRecords(strings.NewReader(b.String()))
	if err != nil {
		return nil, fmt.Errorf("tokenize: kinship words: %w", err)
	}
	ud, err := recs.NewUserDict()
	if err != nil {
		return nil, fmt.Errorf("tokenize: kinship words: %w", err)
	}
	return tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos(), tokenizer.UserDict(ud))
})
