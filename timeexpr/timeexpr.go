// Package timeexpr finds a time expression in a chat message and turns it into
// a time window, without an LLM: 先週何話したっけ names last week, "what did
// we talk about yesterday?" names yesterday, 上个月 names last month.
//
// Parse normalizes the text (Unicode NFKC, so ３日前 reads as 3日前, then
// lower-case, so "Last Week" reads as "last week") and scans it left to right
// with hand-written matchers over package-level tables: nothing is compiled per
// call, and a message costs one pass and at most one allocation (when
// normalization changes the text).
//
// # Calendar
//
// All arithmetic is calendar arithmetic in the user's location: "yesterday" is
// the previous calendar day in loc, whatever the number of hours in between
// (a day containing a DST change is 23 or 25 hours long).
//
//   - Day: [00:00, next day 00:00).
//   - Week: Monday to Sunday. 先週 / last week / 上周 is the calendar week
//     before the current one; N週間前 / N weeks ago is the calendar week N
//     weeks before the current one (the week containing today-7N days), so
//     2週間前 and 先々週 name the same week.
//   - Month, year: calendar months and years. Nヶ月前 / N months ago is the
//     calendar month N months before the current one; 半年前 is 6ヶ月前. A
//     third of a month (上旬 / 初め / 頭, 中旬 / 半ば, 下旬 / 末 / 終わり, zh 底)
//     is days 1–10, 11–20, or 21 to the end: 先月末, 5月の半ば, 去年の2月末.
//   - Vague counts (数日前, a few days ago, several weeks ago, 几天前) cover
//     units 2 to 6 before the current one: 数日前 on the 21st is the 15th to
//     the 19th. "A couple of" covers units 1 to 3.
//   - Ranges of counts (2、3日前, 2~3週間前, 二三日前) cover the units from the
//     larger count before the current one through the smaller: 2、3日前 on
//     the 21st is the 18th and the 19th.
//   - Parts of a day: morning [04:00, 12:00), afternoon (昼, 午後)
//     [12:00, 18:00), 夕方 [15:00, 19:00), night (夜, 晩, evening)
//     [18:00, next day 06:00). 今朝 / this morning is today's morning; 昨夜,
//     昨晩, ゆうべ, 昨日の夜 and last night are [yesterday 18:00, today 06:00).
//   - Seasons: spring March–May, summer June–August, autumn
//     September–November, winter December–February. A winter is named by the year in
//     which it begins, so 去年の冬 in December 2025 is December 2024 to
//     February 2025. 今年の冬 / この冬 / this winter in January or February is
//     the winter that began the previous December, and 去年の冬 / おととしの冬
//     count back from it. English "last summer", "this past summer" and Korean
//     지난 여름 are the most recent summer that has ended before today (in
//     December 2025, summer 2025), whereas 去年の夏, 去年夏天, 작년 여름, "last
//     year's summer" and "summer (of) last year" are literally the summer of
//     the previous calendar year (summer 2024). "The summer before last" and
//     "two summers ago" are the one before "last summer"; "summer 2024",
//     "(in) the summer of 2024" that year's (fall only with a year in
//     digits: "a fall last year" is no season). "Over the summer" and
//     "during the summer" are the current summer once it has begun, else the
//     last one.
//   - Weekend: Saturday and Sunday. 週末 / 土日 / 周末 / over the weekend / the
//     weekend mean the current weekend when today is Saturday or Sunday, else
//     the most recent past one. 先週末 / 先週の週末 / この前の週末 / last
//     weekend / this past weekend / 上周末 always mean the weekend of the
//     previous calendar week (on a Sunday, the weekend before this one).
//     今週末 / this weekend / 这个周末 is the current week's weekend, 上个周末
//     the previous week's. この週末 / この土日 is the nearest one: the current
//     weekend on Saturday and Sunday, the last one on Monday and Tuesday, the
//     coming one from Wednesday. 今度の週末, 次の週末, 下个周末, next weekend,
//     this coming weekend and the weekend after next are ahead.
//   - Weekdays: 月曜 / 月曜日 / on Monday / last Monday / この前の月曜 / 周一 /
//     星期一 / 礼拜一 is the most recent Monday strictly before today (on a
//     Monday, a week ago). 先週の月曜 / 今週の月曜 / on Monday last|this week /
//     上周一 / 这周一 / 这个星期一 name the Monday of that calendar week. The
//     Chinese digit is a weekday only when the next character does not make a
//     word of it (上周一起 is 上周, 这周天气 is 这周). この月曜 is the nearest Monday: today, or the one fewer days back
//     than ahead. 今度の月曜, 次の月曜, 来る月曜日, next Monday, this coming
//     Monday and on Monday next week are ahead, as is an annual event after
//     今度の or 次の (今度の正月).
//   - Months by name: 5月に / 5月の / in May is May of this year when it is not
//     after the current month, else May of last year; "last May" is the most
//     recent May strictly before the current month. 5月3日 is the most recent
//     May 3rd not after today. 去年の5月 is May of last year, "in May 2023"
//     May 2023.
//   - Annual events. A bare name (クリスマス, christmas, at christmas, over
//     the holidays, 春节, 추석) is the most recent occurrence that began on or
//     before today: on December 25th, this Christmas; in February before
//     the lunar new year, last year's 春节. It recurs, so a plan can take its
//     window away (see Past only). "Last Christmas", "this past Christmas",
//     지난 추석 are the most recent occurrence that has ended before today,
//     as "last summer" is: on December 25th, a year ago; in January, the one
//     just gone (this follows "last summer"; "last May", strictly before the
//     current month, differs only while inside the period). A year names its occurrence (去年のクリスマス, 去年春节,
//     작년 추석, "christmas last year", "last year's christmas", "christmas
//     2024", "christmas of 2024"), "this Christmas", 이번 추석, 今年の正月
//     this year's (no window when it is ahead), "the Christmas before last"
//     the one before last. An occurrence belongs to the year of its start,
//     except new year's, which belongs to the year of its January 1st. The
//     windows follow by language.
//   - Japanese events: 正月 / お正月 January 1–3, 元旦 / 元日 January 1, 年末 December
//     20–31, 年末年始 December 20 – January 3, 大晦日 December 31, クリスマス
//     December 24–25, クリスマスイブ December 24, ゴールデンウィーク April 29
//     – May 5, お盆 August 13–16, バレンタイン February 14, ハロウィン October
//     31, こどもの日 May 5, 七夕 July 7, and the school holidays 夏休み July
//     20 – August 31, 冬休み December 25 – January 7, 春休み March 25 –
//     April 7. 七夕 and 端午 read by their clause's language (as the plan
//     rules do): Japanese, July 7 and May 5; Chinese, the lunar dates. A
//     greeting (メリークリスマス) names no window.
//   - English events: christmas / xmas December 24–25, christmas eve, christmas day;
//     the holidays, the holiday season, the christmas holidays / break
//     December 20 – January 3 (年末年始); new year's / new years December 31
//     – January 1 ("new year" without 's only after a preposition or last:
//     over new year; never "the new year"), new year's eve / nye December
//     31, new year's day January 1; valentine's day February 14; halloween
//     October 31; the 4th of july / fourth of july / july 4th July 4;
//     thanksgiving the fourth Thursday of November to the Sunday after,
//     thanksgiving day the Thursday; easter Good Friday to Easter Monday
//     (the Gregorian computus), easter sunday the Sunday; memorial day and
//     labor day the Saturday to the Monday (last Monday of May, first of
//     September). A name followed by the thing it names is no time
//     (christmas tree, easter egg, so "easter egg hunt" too, halloween
//     costume), nor a greeting (merry christmas, happy new year's eve).
//   - Chinese events: 春节 / 过年 除夕 to the 6th day of the first lunar month (7
//     days), 除夕 / 大年三十 the day before the lunar new year, 元宵节 the
//     15th day, 中秋 the 15th of the 8th month, 端午 the 5th of the 5th, 七夕
//     the 7th of the 7th, 国庆 October 1–7 (also 十一, only before a holiday
//     word: 十一假期, 十一的时候; not 十一个, 十一月), 元旦 January 1, 五一 /
//     劳动节 May 1–5 (五一 not inside a number: 十五一个), 清明 April 4–6, 圣诞
//     December 24–25 (not 圣诞树), 平安夜 December 24, 情人节 February 14,
//     万圣节 October 31. 前年 is the year before last and 大前年 the one before
//     (前年 not next to kana, nor in 前年比: in Japanese it is "the year
//     before"). Greetings (春节快乐, 过年好) name no window.
//   - Korean events: 설날 / 설 / 구정 the day before to the day after the lunar new
//     year (설 only as a word: before 에, 엔, 연휴, 명절, or no Hangul; not
//     설거지, 설명, 설 수), 추석 / 한가위 the day before to the day after the
//     15th of the 8th month, 크리스마스 December 24–25, 새해 / 신정 January 1,
//     어린이날 May 5, 연말 December 20–31, 연초 January 1–15, 할로윈 October
//     31. A Korean event is a word of its own (not 압구정 for 구정, nor
//     연말정산, 크리스마스 트리); after 작년, 올해, 지난, 이번 it may follow
//     without a space. Greetings (메리 크리스마스, 새해 복) name no window.
//   - The lunar dates come from tables for 2015–2040 (Chinese and Korean:
//     the Korean calendar, reckoned at 135°E, puts the new year of 2027 and
//     2028 and 추석 of 2040 a day later); a lunar event whose year is out of
//     them names no window.
//   - Birthdays, anniversaries and other personal dates are not events: no
//     date is known for them.
//   - 去年の今頃 / 今年の今頃 is the same date in that year ±7 days.
//   - さっき / 先ほど (earlier) and "earlier today" are today.
//
// # Past only
//
// A window is about when a conversation happened, so it never extends past
// the end of today: To is clipped to the start of tomorrow in loc. An
// expression whose window lies entirely after today (明日, 来週, 来週末, next
// week's days, 今週末 on a Wednesday, 今年の夏 in April, 今度の週末, 下个周末)
// yields no window, and the scan continues after it, so 来週末 never reads as
// 週末. Words such as 毎週 / 毎日 (every week / day) are consumed the same way.
// Vague references (この前, こないだ, 先日, the other day, last time) are not
// windows; package smalltalk treats them as memory cues.
//
// Plans are not the past either. An expression that does not say by itself
// that its time is past, a recurring time read as the most recent one (週末,
// 土曜, お盆, 5月に, on Saturday, over the weekend, 周末, 周六) or the current
// period (今日, 今週, 今年, this week, 这个周末), names no window when its
// clause (up to 。.!?; or a line break, or a contrasting けど, が、, し、, but,
// 但, 不过) makes it the time of a plan, and the scan goes on. A plan is:
//
//   - a plan word next to the expression: 週末の予定, 土曜予定ある?, plans for
//     the weekend, 周末的计划. This holds whatever the tense of the rest, so
//     週末の予定、何だったっけ? (what was my plan for the weekend?) names no
//     window: a plan is made before its time, so the weekend is not when it
//     was talked about, and without a window retrieval searches all of the
//     past.
//   - in Japanese, after the expression, 予定, つもり, 計画 or a volitional
//     before と思 (週末は山登りに行く予定, 週末、富士山に登ろうと思う), or the
//     clause ending in a volitional (行こう, 行きましょう); for a recurring
//     time also ending in たい, 楽しみ, a polite ます / ません, or 行く, 会う,
//     来る, 帰る, 出かける, 遊ぶ, する (日曜は友達と会う, 週末何する?). Not when
//     the expression is attributive (週末の写真見る?) or the clause ends in the
//     past (予定だった, 行こうと思ったけど, 遊んだ).
//   - in English, anywhere in the clause, will, 'll, gonna, be going, want,
//     plan, hope, need, should, might, let's, see you, can't wait, looking
//     forward, and for a recurring time any present progressive (we're meeting
//     on Saturday). Not when the clause has a verb in the past (did, was,
//     went, -ed): I'll tell you what we did on Saturday keeps its window.
//   - in Chinese, anywhere in the clause, 打算, 准备, 计划, 安排, 想, 要, 一起,
//     or a final 吧 or 见 (我打算周末去爬山, 周末一起吃饭吧). Not when the
//     expression is attributive (周末的照片) or the clause ends in 了 or 过.
//
// A clause is English when its expression is ASCII, else Japanese or Chinese
// as package lang's classifier reads it (lang.Detect): Japanese when it holds
// kana; Han alone is Chinese for Parse and the hint's language for ParseLang
// (a request's Lang: a Japanese person's 週末予定確認 is a plan).
//
// An expression that says its time is past (昨日, 先週末, この前の土曜, 3日前,
// last weekend, 上周末) keeps its window in any sentence. plan.go lists the
// words of each rule.
//
// # Several expressions
//
// The leftmost expression wins; at the same position the longest one
// (去年の夏 over 去年, 先週末 over 先週). Window.Expr is the matched span of the
// normalized text; Window.Start and Window.End locate it in text as written.
package timeexpr

import (
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
	"golang.org/x/text/unicode/norm"
)

// Window is the half-open time interval [From, To) named by a time
// expression, with both ends in the location given to Parse.
type Window struct {
	// From is the first instant of the window.
	From time.Time
	// To is the first instant after the window; From is before To.
	To time.Time
	// Expr is the matched expression after normalization: a substring of
	// Normalize(text) (NFKC, lower case), not necessarily of text: "3日前"
	// for ３日前, "last week" for "Last Week". It is the whole of the words
	// that name the time (去年のクリスマス, "christmas last year", "over the
	// holidays", 작년 추석) and nothing else, so that a caller can drop them;
	// context that only licenses a match (假期 after 十一, 연휴 after 설) is
	// not part of it.
	Expr string
	// Start and End are the byte offsets of the expression in text as
	// written: text[Start:End] is "３日前" where Expr is "3日前", and
	// Normalize(text[Start:End]) == Expr. Where NFKC merges or splits
	// characters across the edge of the expression (rare: a combining mark,
	// a ligature), the span widens to whole normalization segments, so that
	// Normalize(text[Start:End]) contains Expr.
	Start, End int
	// Only reports that the text is nothing but the time expression and
	// generic "what did we talk about / what happened" words, punctuation and
	// emoji, so it carries no topic: 先週何話したっけ, 昨日の話の続き,
	// "what did we talk about yesterday?", 上周我们聊了什么. The generic words
	// are listed in only.go (genericWords, genericEnglish).
	Only bool
}

// Parse finds the first time expression in text and returns its window,
// computed relative to now in loc (nil means UTC). It reports false when the
// text names no past time window. Parse is safe for concurrent use and never
// panics. It reads a clause written in Han alone as Chinese: ParseLang with
// no hint.
func Parse(text string, now time.Time, loc *time.Location) (Window, bool) {
	return ParseLang(text, now, loc, lang.Other)
}

// ParseLang is Parse for a text whose language the caller knows where its
// script does not tell (hint, as lang.Detect takes it: a request's Lang, or
// the language its store reads Han-only text as). Only the plan rules read
// the language (Past only): a clause written in Han alone is read with the
// plan words of hint, so a Japanese person's 週末予定確認 (checking the
// weekend's plans) is a plan by Japanese 予定 and names no window, where
// Parse, reading it as Chinese, gives the last weekend.
func ParseLang(text string, now time.Time, loc *time.Location, hint lang.Language) (Window, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s := Normalize(text)
	c := newCtx(now, loc)
	c.hint = hint
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if m := c.matchAt(s, i, r); m.end > i {
			if sp, ok := c.clip(m.sp); ok && (m.t == tPast || !isPlan(s, i, m.end, m.t, hint)) {
				start, end := written(text, s, i, m.end)
				return Window{
					From:  sp.from,
					To:    sp.to,
					Expr:  s[i:m.end],
					Start: start,
					End:   end,
					Only:  onlyGeneric(s[:i]) && onlyGeneric(s[m.end:]),
				}, true
			}
			i = m.end // matched, but no window: 来週, 明日, 毎週, a plan's 週末, ...
			continue
		}
		i += size
	}
	return Window{}, false
}

// written returns the span of text whose normalization is s[i:e], where s
// is Normalize(text). Text that normalization leaves alone is s itself.
// Text of the fast path of Normalize maps rune for rune (full-width and
// upper-case letters to one each); other text is walked by normalization
// segments, and a span edge inside a segment widens to it.
func written(text, s string, i, e int) (start, end int) {
	if text == s {
		return i, e
	}
	k := 0 // the offset in s of text[j:]
	for j := 0; j < len(text); {
		if k == i {
			start = j
		}
		if k == e {
			return start, j
		}
		c := text[j]
		if c < utf8.RuneSelf {
			j, k = j+1, k+1
			continue
		}
		r, size := utf8.DecodeRuneInString(text[j:])
		switch {
		case nfkcStable(r):
			k += size
		case r == '\u3000' || '！' <= r && r <= '～':
			k++
		default:
			return writtenNorm(text, i, e)
		}
		j += size
	}
	return start, len(text)
}

// writtenNorm is written for text that Normalize puts through NFKC: it
// walks the normalization segments of text, each lower-cased rune by rune
// as strings.ToLower does. The iterator may hand out a long segment in
// pieces (ǆ as d, then ž) without moving on in text: only where its
// position advances does the output so far normalize text so far.
func writtenNorm(text string, i, e int) (start, end int) {
	var it norm.Iter
	it.InitString(norm.NFKC, text)
	k, last := 0, -1
	for !it.Done() {
		if j := it.Pos(); j != last {
			last = j
			if k <= i {
				start = j
			}
			if k >= e {
				return start, j
			}
		}
		for _, r := range string(it.Next()) {
			k += utf8.RuneLen(unicode.ToLower(r))
		}
	}
	return start, len(text)
}
