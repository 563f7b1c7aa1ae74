package timeexpr

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// match is the result of a matcher at some offset i: the end of the matched
// text (end <= i: no match), its window (zero: a match with no window) and
// what the expression says of its time (see tense).
type match struct {
	end int
	sp  span
	t   tense
}

// kind says how a CJK literal becomes a window.
type kind uint8

const (
	kDay       kind = iota + 1 // day n days ago; day suffixes (の夜) may follow
	kDayPart                   // part p of the day n days ago
	kWeek                      // week n weeks ago; week suffixes (末, の月曜) may follow
	kMonth                     // month n months ago
	kYear                      // year n years ago; year suffixes (の夏, の5月) may follow
	kWeekend                   // 週末: see ctx.weekendNow
	kWeekday                   // weekday n (Monday 0): the most recent one before today
	kZhWeekday                 // 周, 星期, 礼拜: a weekday digit must follow (周六); the most recent one
	kPrefix                    // この前の (n 1), この (n 0), 今度の (n -1): 週末 or a weekday must follow
	kWeekOf                    // 上个 (n 1), 这个 (n 0), 下个 (n -1): the week's 周末 or a weekday must follow
	kSeason                    // この夏: the current season n
	kEvent                     // annual event n: the most recent one (events.go)
	kLastOf                    // 지난 (n 1), 이번 (n 0): a season or an annual event must follow
)

// lit is a CJK literal. A negative n names the future (明日 is day -1): it
// matches, so that 来週末 is consumed whole, but yields no window. void marks
// words that are consumed (with their suffixes) and never yield a window.
// past marks a word of today that is said of the past (さっき); see lit.tense.
// g, not and alt read the context of a literal (see admits and eventOf).
type lit struct {
	s    string
	k    kind
	n    int
	p    part
	void bool
	past bool
	g    guard
	not  []string
	alt  event
}

// tense returns what literal l says of its time: a weekend, a weekday, an
// annual event and この週末 recur (tAny); a count of 0 (今日, 今週, 今月,
// 今年, 这个周末) and a season (この夏) are the current period (tNow); the rest
// (昨日, 先週, 今朝, この前の土曜, さっき) is past.
func (l lit) tense() tense {
	switch {
	case l.past || l.k == kDayPart:
		return tPast
	case l.k == kWeekend || l.k == kWeekday || l.k == kZhWeekday || l.k == kEvent || l.k == kPrefix && l.n == 0:
		return tAny
	case l.k == kSeason || l.n == 0:
		return tNow
	}
	return tPast
}

// literals are the fixed CJK expressions, in normalized (NFKC) form.
var literals = []lit{
	// Days.
	{s: "今日", k: kDay}, {s: "本日", k: kDay}, {s: "今天", k: kDay},
	{s: "さっき", k: kDay, past: true}, {s: "先ほど", k: kDay, past: true}, {s: "先程", k: kDay, past: true},
	{s: "昨日", k: kDay, n: 1}, {s: "きのう", k: kDay, n: 1}, {s: "昨天", k: kDay, n: 1},
	{s: "おととい", k: kDay, n: 2}, {s: "一昨日", k: kDay, n: 2}, {s: "前天", k: kDay, n: 2},
	{s: "さきおととい", k: kDay, n: 3}, {s: "大前天", k: kDay, n: 3},
	{s: "明日", k: kDay, n: -1}, {s: "あした", k: kDay, n: -1}, {s: "明天", k: kDay, n: -1},
	{s: "明後日", k: kDay, n: -2}, {s: "あさって", k: kDay, n: -2},
	{s: "后天", k: kDay, n: -2}, {s: "後天", k: kDay, n: -2},
	{s: "毎日", k: kDay, void: true}, {s: "每天", k: kDay, void: true},
	{s: "毎朝", k: kDay, void: true}, {s: "毎晩", k: kDay, void: true},
	{s: "今朝", k: kDayPart, p: pMorning}, {s: "今早", k: kDayPart, p: pMorning},
	{s: "昨夜", k: kDayPart, n: 1, p: pNight}, {s: "昨晩", k: kDayPart, n: 1, p: pNight},
	{s: "昨晚", k: kDayPart, n: 1, p: pNight}, {s: "ゆうべ", k: kDayPart, n: 1, p: pNight},
	// Korean days (아까 is left out: 아까워, 아까운 are "a pity").
	{s: "오늘", k: kDay}, {s: "어제", k: kDay, n: 1}, {s: "그제", k: kDay, n: 2}, {s: "그저께", k: kDay, n: 2},
	{s: "엊그제", k: kDay, n: 2}, {s: "내일", k: kDay, n: -1}, {s: "모레", k: kDay, n: -2},
	{s: "매일", k: kDay, void: true}, {s: "어젯밤", k: kDayPart, n: 1, p: pNight},

	// Weeks.
	{s: "今週", k: kWeek}, {s: "先週", k: kWeek, n: 1}, {s: "前週", k: kWeek, n: 1},
	{s: "先々週", k: kWeek, n: 2}, {s: "先先週", k: kWeek, n: 2},
	{s: "来週", k: kWeek, n: -1}, {s: "再来週", k: kWeek, n: -2},
	{s: "这周", k: kWeek}, {s: "這週", k: kWeek}, {s: "這周", k: kWeek},
	{s: "本周", k: kWeek}, {s: "本週", k: kWeek},
	{s: "这个星期", k: kWeek}, {s: "這個星期", k: kWeek}, {s: "这星期", k: kWeek},
	{s: "上周", k: kWeek, n: 1}, {s: "上週", k: kWeek, n: 1}, {s: "上星期", k: kWeek, n: 1},
	{s: "上个星期", k: kWeek, n: 1}, {s: "上個星期", k: kWeek, n: 1},
	{s: "上礼拜", k: kWeek, n: 1}, {s: "上禮拜", k: kWeek, n: 1},
	{s: "上个礼拜", k: kWeek, n: 1}, {s: "上個禮拜", k: kWeek, n: 1},
	{s: "上上周", k: kWeek, n: 2}, {s: "上上週", k: kWeek, n: 2},
	{s: "上上个星期", k: kWeek, n: 2}, {s: "上上個星期", k: kWeek, n: 2},
	{s: "下周", k: kWeek, n: -1}, {s: "下週", k: kWeek, n: -1},
	{s: "下个星期", k: kWeek, n: -1}, {s: "下個星期", k: kWeek, n: -1},
	{s: "毎週", k: kWeek, void: true}, {s: "每周", k: kWeek, void: true}, {s: "每週", k: kWeek, void: true},
	{s: "이번 주", k: kWeek}, {s: "이번주", k: kWeek},
	{s: "지난주", k: kWeek, n: 1}, {s: "지난 주", k: kWeek, n: 1}, {s: "저번 주", k: kWeek, n: 1}, {s: "저번주", k: kWeek, n: 1},
	{s: "지지난주", k: kWeek, n: 2}, {s: "지지난 주", k: kWeek, n: 2},
	{s: "다음 주", k: kWeek, n: -1}, {s: "다음주", k: kWeek, n: -1}, {s: "매주", k: kWeek, void: true},

	// Months.
	{s: "今月", k: kMonth}, {s: "先月", k: kMonth, n: 1}, {s: "前月", k: kMonth, n: 1},
	{s: "先々月", k: kMonth, n: 2}, {s: "先先月", k: kMonth, n: 2},
	{s: "来月", k: kMonth, n: -1}, {s: "再来月", k: kMonth, n: -2},
	{s: "这个月", k: kMonth}, {s: "這個月", k: kMonth}, {s: "本月", k: kMonth},
	{s: "上个月", k: kMonth, n: 1}, {s: "上個月", k: kMonth, n: 1}, {s: "上月", k: kMonth, n: 1},
	{s: "上上个月", k: kMonth, n: 2}, {s: "上上個月", k: kMonth, n: 2},
	{s: "下个月", k: kMonth, n: -1}, {s: "下個月", k: kMonth, n: -1},
	{s: "毎月", k: kMonth, void: true}, {s: "每月", k: kMonth, void: true},
	{s: "이번 달", k: kMonth}, {s: "이번달", k: kMonth},
	{s: "지난달", k: kMonth, n: 1}, {s: "지난 달", k: kMonth, n: 1}, {s: "저번 달", k: kMonth, n: 1}, {s: "저번달", k: kMonth, n: 1},
	{s: "지지난달", k: kMonth, n: 2}, {s: "다음 달", k: kMonth, n: -1}, {s: "다음달", k: kMonth, n: -1},
	{s: "매달", k: kMonth, void: true}, {s: "매월", k: kMonth, void: true},

	// Years.
	{s: "今年", k: kYear}, {s: "本年", k: kYear},
	{s: "去年", k: kYear, n: 1}, {s: "昨年", k: kYear, n: 1},
	{s: "おととし", k: kYear, n: 2}, {s: "一昨年", k: kYear, n: 2},
	{s: "前年", k: kYear, n: 2, g: gZh, not: []string{"比", "度", "同期", "同月"}}, {s: "大前年", k: kYear, n: 3},
	{s: "来年", k: kYear, n: -1}, {s: "再来年", k: kYear, n: -2}, {s: "明年", k: kYear, n: -1},
	{s: "毎年", k: kYear, void: true}, {s: "每年", k: kYear, void: true},
	{s: "올해", k: kYear}, {s: "금년", k: kYear}, {s: "작년", k: kYear, n: 1}, {s: "지난해", k: kYear, n: 1},
	{s: "재작년", k: kYear, n: 2}, {s: "내년", k: kYear, n: -1}, {s: "매년", k: kYear, void: true},
	{s: "지난", k: kLastOf, n: 1}, {s: "이번", k: kLastOf},

	// Weekends and weekdays.
	{s: "週末", k: kWeekend}, {s: "周末", k: kWeekend}, {s: "土日", k: kWeekend}, {s: "주말", k: kWeekend},
	{s: "월요일", k: kWeekday, n: 0}, {s: "화요일", k: kWeekday, n: 1}, {s: "수요일", k: kWeekday, n: 2},
	{s: "목요일", k: kWeekday, n: 3}, {s: "금요일", k: kWeekday, n: 4}, {s: "토요일", k: kWeekday, n: 5},
	{s: "일요일", k: kWeekday, n: 6},
	{s: "月曜日", k: kWeekday, n: 0}, {s: "月曜", k: kWeekday, n: 0},
	{s: "火曜日", k: kWeekday, n: 1}, {s: "火曜", k: kWeekday, n: 1},
	{s: "水曜日", k: kWeekday, n: 2}, {s: "水曜", k: kWeekday, n: 2},
	{s: "木曜日", k: kWeekday, n: 3}, {s: "木曜", k: kWeekday, n: 3},
	{s: "金曜日", k: kWeekday, n: 4}, {s: "金曜", k: kWeekday, n: 4},
	{s: "土曜日", k: kWeekday, n: 5}, {s: "土曜", k: kWeekday, n: 5},
	{s: "日曜日", k: kWeekday, n: 6}, {s: "日曜", k: kWeekday, n: 6},
	{s: "周", k: kZhWeekday}, {s: "星期", k: kZhWeekday}, // not 週: Japanese 週一 is once a week
	{s: "礼拜", k: kZhWeekday}, {s: "禮拜", k: kZhWeekday},
	{s: "この前の", k: kPrefix, n: 1}, {s: "こないだの", k: kPrefix, n: 1},
	{s: "この間の", k: kPrefix, n: 1}, {s: "このあいだの", k: kPrefix, n: 1},
	{s: "この", k: kPrefix},
	{s: "今度の", k: kPrefix, n: -1}, {s: "今度", k: kPrefix, n: -1}, {s: "次の", k: kPrefix, n: -1},
	{s: "来る", k: kPrefix, n: -1}, {s: "来たる", k: kPrefix, n: -1}, {s: "きたる", k: kPrefix, n: -1},
	{s: "上个", k: kWeekOf, n: 1}, {s: "上個", k: kWeekOf, n: 1},
	{s: "这个", k: kWeekOf}, {s: "這個", k: kWeekOf},
	{s: "下个", k: kWeekOf, n: -1}, {s: "下個", k: kWeekOf, n: -1},
	{s: "下一个", k: kWeekOf, n: -1}, {s: "下一個", k: kWeekOf, n: -1},

	// Seasons; the annual events are eventLiterals.
	{s: "この春", k: kSeason, n: int(sSpring)}, {s: "この夏", k: kSeason, n: int(sSummer)},
	{s: "この秋", k: kSeason, n: int(sAutumn)}, {s: "この冬", k: kSeason, n: int(sWinter)},
	{s: "이번 봄", k: kSeason, n: int(sSpring)}, {s: "이번 여름", k: kSeason, n: int(sSummer)},
	{s: "이번 가을", k: kSeason, n: int(sAutumn)}, {s: "이번 겨울", k: kSeason, n: int(sWinter)},
}

// litIndex maps a literal's first rune to the literals starting with it,
// longest first. It is built once and never written afterwards.
var litIndex = func() map[rune][]lit {
	idx := make(map[rune][]lit)
	for _, l := range slices.Concat(literals, eventLiterals) {
		r, _ := utf8.DecodeRuneInString(l.s)
		idx[r] = append(idx[r], l)
	}
	for _, ls := range idx {
		slices.SortStableFunc(ls, func(a, b lit) int { return cmp.Compare(len(b.s), len(a.s)) })
	}
	return idx
}()

// word is an entry of a small suffix table.
type word struct {
	s string
	v int
}

// lookup returns the value and end of the first entry of table that s has at
// offset i. Tables list longer entries before their prefixes.
func lookup(s string, i int, table []word) (v, end int, ok bool) {
	for _, w := range table {
		if strings.HasPrefix(s[i:], w.s) {
			return w.v, i + len(w.s), true
		}
	}
	return 0, i, false
}

// skipNo skips one の or 的 at i, or the one space between two Korean words
// (작년 여름, 지난주 토요일, 어제 저녁, 去年的春节).
func skipNo(s string, i int) int {
	if strings.HasPrefix(s[i:], "の") || strings.HasPrefix(s[i:], "的") {
		return i + len("の") // both are 3 bytes
	}
	if strings.HasPrefix(s[i:], " ") && i > 0 && isHangulAt(s, i+1) {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if isHangul(r) {
			return i + 1
		}
	}
	return i
}

// isHangul reports whether r is a Hangul syllable.
func isHangul(r rune) bool { return r >= 0xac00 && r <= 0xd7a3 }

// isHangulAt reports whether s holds a Hangul syllable at i.
func isHangulAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return i < len(s) && isHangul(r)
}

var (
	dayParts = []word{
		{"朝", int(pMorning)}, {"午前", int(pMorning)}, {"早上", int(pMorning)}, {"上午", int(pMorning)},
		{"昼", int(pAfternoon)}, {"午後", int(pAfternoon)}, {"下午", int(pAfternoon)},
		{"夕方", int(pDusk)},
		{"夜", int(pNight)}, {"晩", int(pNight)}, {"晚上", int(pNight)},
		{"아침", int(pMorning)}, {"오전", int(pMorning)}, {"오후", int(pAfternoon)}, {"낮", int(pAfternoon)},
		{"저녁", int(pDusk)}, {"밤", int(pNight)},
	}
	weekdays = []word{
		{"月曜日", 0}, {"月曜", 0}, {"火曜日", 1}, {"火曜", 1}, {"水曜日", 2}, {"水曜", 2},
		{"木曜日", 3}, {"木曜", 3}, {"金曜日", 4}, {"金曜", 4}, {"土曜日", 5}, {"土曜", 5},
		{"日曜日", 6}, {"日曜", 6},
		{"월요일", 0}, {"화요일", 1}, {"수요일", 2}, {"목요일", 3}, {"금요일", 4}, {"토요일", 5}, {"일요일", 6},
	}
	weekendWords = []word{{"週末", 0}, {"周末", 0}, {"土日", 0}, {"주말", 0}}
	// zhWeekdays are the digits of a Chinese weekday after 周, 星期 or 礼拜
	// (周六, 星期天, 上周一). The rune after the digit must be zhAfterDay, a
	// separator, ASCII or nothing: a word of its own (一起, 一直, 三次, 天气,
	// 日本, or Japanese 先週六本木, 週一回) makes the digit no weekday.
	zhWeekdays = []word{
		{"一", 0}, {"二", 1}, {"三", 2}, {"四", 3}, {"五", 4}, {"六", 5}, {"日", 6}, {"天", 6},
	}
	zhAfterDay = "我你他她它咱一去要打想的晚早上下中有和跟在会會可能是就还還也都见見吧呢吗嗎啊" +
		"开開过過来來休加到前后後之那这這再又没沒不约約聚出"
	// zhWeekWords come between 这个 / 上个 / 下个 and a weekday digit (下个周六).
	zhWeekWords = []word{{"周", 0}, {"週", 0}, {"星期", 0}, {"礼拜", 0}, {"禮拜", 0}}
	seasons     = []word{
		{"春", int(sSpring)}, {"夏", int(sSummer)}, {"秋", int(sAutumn)}, {"冬", int(sWinter)},
		{"봄", int(sSpring)}, {"여름", int(sSummer)}, {"가을", int(sAutumn)}, {"겨울", int(sWinter)},
	}
	sameTime = []word{{"今頃", 0}, {"今ごろ", 0}, {"この時期", 0}, {"同じ頃", 0}, {"同じ時期", 0}}
	// agoUnits are the units of N<unit>前 (ja) and N<unit>前 (zh).
	agoUnits = []word{
		{"日", int(uDay)}, {"天", int(uDay)},
		{"週間", int(uWeek)}, {"週", int(uWeek)}, {"周", int(uWeek)},
		{"个星期", int(uWeek)}, {"個星期", int(uWeek)}, {"星期", int(uWeek)},
		{"个礼拜", int(uWeek)}, {"個禮拜", int(uWeek)}, {"礼拜", int(uWeek)}, {"禮拜", int(uWeek)},
		{"ヶ月", int(uMonth)}, {"か月", int(uMonth)}, {"カ月", int(uMonth)}, {"ケ月", int(uMonth)},
		{"ヵ月", int(uMonth)}, {"箇月", int(uMonth)}, {"个月", int(uMonth)}, {"個月", int(uMonth)},
		{"年", int(uYear)},
	}
	// monthParts name a third of a month: early (days 1–10), middle (11–20)
	// or late (21 to the end). Longer words first: lookup takes the first.
	monthParts = []word{
		{"上旬", 1}, {"初旬", 1}, {"初め", 1}, {"はじめ", 1}, {"始め", 1}, {"頭", 1}, {"初", 1},
		{"中旬", 2}, {"半ば", 2}, {"なかば", 2},
		{"下旬", 3}, {"末", 3}, {"終わり", 3}, {"おわり", 3}, {"底", 3},
	}
	// approx may sit between a unit and 前: 3日ほど前.
	approx = []word{{"ほど", 0}, {"くらい", 0}, {"ぐらい", 0}, {"位", 0}, {"程", 0}}
	// monthSuffixes must follow a bare month (5月に) for it to count, so that
	// 誕生日は5月 or 5月生まれ name no window.
	monthSuffixes = []word{
		{"に", 0}, {"の", 0}, {"は", 0}, {"も", 0}, {"頃", 0}, {"ごろ", 0}, {"的", 0}, {"份", 0},
	}
)

// matchAt tries every matcher at offset i, where rune r starts, and returns
// the longest match.
func (c *ctx) matchAt(s string, i int, r rune) match {
	if r < utf8.RuneSelf {
		b := byte(r)
		if !isAlnum(b) || (i > 0 && isAlnum(s[i-1])) {
			return match{}
		}
		m := c.matchEnglish(s, i)
		if isDigit(b) {
			if n := c.matchNumber(s, i); n.end > m.end {
				m = n
			}
		}
		return m
	}
	var m match
	for _, l := range litIndex[r] {
		if !strings.HasPrefix(s[i:], l.s) {
			continue
		}
		if n := c.matchLit(s, i, i+len(l.s), l); n.end > m.end {
			m = n
		}
	}
	if isNumberStart(r) {
		if p, _ := utf8.DecodeLastRuneInString(s[:i]); kanjiDigit(p) < 0 {
			if n := c.matchNumber(s, i); n.end > m.end {
				m = n
			}
		}
	}
	return m
}

// matchLit resolves literal l at s[i:j].
func (c *ctx) matchLit(s string, i, j int, l lit) match {
	if !admits(s, i, j, l, true) {
		return match{}
	}
	var m match
	switch l.k {
	case kDay:
		m = c.dayExt(s, j, c.dayOf(l.n))
	case kDayPart:
		m = match{end: j, sp: c.dayWindow(c.dayOf(l.n), l.p)}
	case kWeek:
		m = c.weekExt(s, j, l.n)
	case kMonth:
		m = c.monthExt(s, j, c.ago(uMonth, l.n))
	case kYear:
		m = c.yearExt(s, j, l.n)
	case kWeekend:
		m = match{end: j, sp: c.weekendNow()}
	case kWeekday:
		m = c.dayExt(s, j, c.recentWeekday(l.n))
	case kPrefix:
		m = c.prefixed(s, j, l.n)
	case kWeekOf:
		if m = c.weekExt(s, j, l.n); m.end > j {
			break
		}
		_, k, _ := lookup(s, j, zhWeekWords)
		wd, e, ok := zhWeekday(s, k)
		if k == j || !ok { // 这个周期 is no week
			return match{}
		}
		m = c.dayExt(s, e, c.weekday(l.n, wd))
	case kZhWeekday:
		wd, e, ok := zhWeekday(s, j)
		if !ok {
			return match{}
		}
		m = c.dayExt(s, e, c.recentWeekday(wd))
	case kSeason:
		se := season(l.n)
		m = match{end: j, sp: c.seasonSpan(se, c.seasonYear(se))}
	case kEvent:
		m = match{end: j, sp: c.recentEvent(c.eventOf(s, i, j, l), false, 0)}
	case kLastOf:
		if m = c.lastOf(s, j, l.n); m.end == 0 {
			return m
		}
	}
	if l.void {
		m.sp = span{}
	}
	m.t = l.tense()
	return m
}

// prefixed matches what follows a Japanese prefix at j: 週末, 土日 or a
// weekday. It is the most recent one for n = 1 (この前の週末, この前の土曜),
// the nearest one for n = 0 (この週末, この土曜: the current weekend on Saturday
// and Sunday, the last one on Monday and Tuesday, the coming one from
// Wednesday; the weekday fewer days back than ahead, else the coming one), and
// the coming one for n < 0 (今度の週末, 次の日曜, 来る土曜日). A coming one is
// after today, a match without a window, as is an annual event after a coming
// prefix (今度の正月).
func (c *ctx) prefixed(s string, j, n int) match {
	if _, e, ok := lookup(s, j, weekendWords); ok {
		switch {
		case n > 0 || n == 0 && c.wd < 2:
			return match{end: e, sp: c.weekend(1)}
		case n == 0 && c.wd >= 5:
			return match{end: e, sp: c.weekend(0)}
		}
		return match{end: e}
	}
	if wd, e, ok := lookup(s, j, weekdays); ok {
		back := (c.wd - wd + 7) % 7
		switch {
		case n > 0:
			return c.dayExt(s, e, c.recentWeekday(wd))
		case n == 0 && back <= 3:
			return c.dayExt(s, e, c.dayOf(back))
		}
		return match{end: c.dayExt(s, e, c.today).end} // 今度の土曜の夜, whole
	}
	if _, e, ok := c.eventAt(s, j); ok && n < 0 {
		return match{end: e}
	}
	return match{}
}

// lastOf matches the season or annual event after Korean 지난 (n 1: the
// most recent one that has ended, like "last summer") or 이번 (n 0: this
// year's) at j: 지난 여름, 지난 추석, 이번 설.
func (c *ctx) lastOf(s string, j, n int) match {
	k := skipNo(s, j)
	if v, e, ok := lookup(s, k, seasons); ok {
		se := season(v)
		if n > 0 {
			return match{end: e, sp: c.lastSeason(se, 0)}
		}
		return match{end: e, sp: c.seasonSpan(se, c.seasonYear(se))}
	}
	if ev, e, ok := c.eventAt(s, k); ok {
		if n > 0 {
			return match{end: e, sp: c.recentEvent(ev, true, 0)}
		}
		return match{end: e, sp: c.eventSpan(ev, c.y)}
	}
	return match{}
}

// dayExt matches the suffixes of a day ([の]朝, [の]夜, ...) at j.
func (c *ctx) dayExt(s string, j int, day time.Time) match {
	if p, e, ok := lookup(s, skipNo(s, j), dayParts); ok {
		return match{end: e, sp: c.dayWindow(day, part(p))}
	}
	return match{end: j, sp: c.dayWindow(day, 0)}
}

// weekExt matches the suffixes of the week n weeks ago at j: 末, の週末, の土日,
// [の]月曜, and the weekday digit of 上周六 or 这个星期天 (see zhWeekdays).
func (c *ctx) weekExt(s string, j, n int) match {
	if strings.HasPrefix(s[j:], "末") {
		return match{end: j + len("末"), sp: c.weekend(n)}
	}
	if strings.HasPrefix(s[j:], "말") && strings.HasSuffix(s[:j], "주") { // 지난 주말
		return match{end: j + len("말"), sp: c.weekend(n)}
	}
	k := skipNo(s, j)
	if _, e, ok := lookup(s, k, weekendWords); ok {
		return match{end: e, sp: c.weekend(n)}
	}
	if wd, e, ok := lookup(s, k, weekdays); ok {
		return c.dayExt(s, e, c.weekday(n, wd))
	}
	if wd, e, ok := zhWeekday(s, j); ok {
		return c.dayExt(s, e, c.weekday(n, wd))
	}
	return match{end: j, sp: c.ago(uWeek, n)}
}

// zhWeekday matches the weekday digit of zhWeekdays at j (Monday 0).
func zhWeekday(s string, j int) (wd, end int, ok bool) {
	wd, e, ok := lookup(s, j, zhWeekdays)
	if !ok {
		return 0, j, false
	}
	if r, _ := utf8.DecodeRuneInString(s[e:]); r >= utf8.RuneSelf && !isSeparator(r) && !strings.ContainsRune(zhAfterDay, r) {
		return 0, j, false
	}
	return wd, e, true
}

// yearExt matches the suffixes of the year n years before the current one at
// j: 末, [の]5月, [の]5月3日, [の]夏, [の]年末, [の]今頃. A winter counts back
// from the current one (see ctx.seasonYear).
func (c *ctx) yearExt(s string, j, n int) match {
	y := c.y - n
	if strings.HasPrefix(s[j:], "末") {
		return match{end: j + len("末"), sp: c.eventSpan(eNenmatsu, y)}
	}
	k := skipNo(s, j)
	if v, e, q := parseCount(s, k); e > k && q == qExact && v >= 1 && v <= 12 && strings.HasPrefix(s[e:], "月") {
		e += len("月")
		if d, e2, ok := dayOfMonth(s, e, time.Month(v)); ok {
			return match{end: e2, sp: c.days(y, time.Month(v), d, 1)}
		}
		return c.monthExt(s, e, c.month(y, time.Month(v)))
	}
	if ev, e, ok := c.eventAt(s, k); ok {
		return match{end: e, sp: c.eventSpan(ev, y)}
	}
	if v, e, ok := lookup(s, k, seasons); ok {
		se := season(v)
		if strings.HasPrefix(s[e:], "天") { // zh 夏天
			e += len("天")
		}
		return match{end: e, sp: c.seasonSpan(se, c.seasonYear(se)-n)}
	}
	if _, e, ok := lookup(s, k, sameTime); ok {
		return match{end: e, sp: c.aroundDate(y)}
	}
	return match{end: j, sp: span{c.date(y, 1, 1), c.date(y+1, 1, 1)}}
}

// dayOfMonth matches N日 at i (not N日間), a day that month m has in a leap
// year (2月29日 in another year is March 1st).
func dayOfMonth(s string, i int, m time.Month) (d, end int, ok bool) {
	v, e, q := parseCount(s, i)
	if e == i || q != qExact || v < 1 || v > monthDays[m] || !strings.HasPrefix(s[e:], "日") {
		return 0, i, false
	}
	e += len("日")
	if strings.HasPrefix(s[e:], "間") {
		return 0, i, false
	}
	return v, e, true
}

// monthDays is the number of days of each month in a leap year.
var monthDays = [...]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// quantity says what kind of count parseCount read.
type quantity uint8

const (
	qExact quantity = iota
	qFew            // 数, 几, 幾: a few
	qHalf           // 半
)

// isNumberStart reports whether a CJK count can start with r.
func isNumberStart(r rune) bool {
	switch r {
	case '数', '几', '幾', '半', '两', '兩':
		return true
	}
	return kanjiDigit(r) >= 0 || r == '十'
}

// kanjiDigit returns the value of a kanji digit 〇 to 九, or -1.
func kanjiDigit(r rune) int {
	switch r {
	case '〇':
		return 0
	case '一':
		return 1
	case '二':
		return 2
	case '三':
		return 3
	case '四':
		return 4
	case '五':
		return 5
	case '六':
		return 6
	case '七':
		return 7
	case '八':
		return 8
	case '九':
		return 9
	case '十':
		return 10 // so that a numeral never starts right after 十 either
	}
	return -1
}

// parseCount reads a count at i: 1 to 4 ASCII digits, a kanji numeral up to
// 九十九 (三, 十, 十二, 二十, 二十三), 两/兩 (2), 数/几/幾 (a few) or 半 (half).
// It returns end == i when there is none.
func parseCount(s string, i int) (n, end int, q quantity) {
	if i >= len(s) {
		return 0, i, qExact
	}
	if isDigit(s[i]) {
		j := i
		for j < len(s) && isDigit(s[j]) {
			n = n*10 + int(s[j]-'0')
			j++
			if j-i > 4 {
				return 0, i, qExact
			}
		}
		return n, j, qExact
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '数', '几', '幾':
		return 0, i + size, qFew
	case '半':
		return 0, i + size, qHalf
	case '两', '兩':
		return 2, i + size, qExact
	}
	j := i
	d := kanjiDigit(r)
	switch {
	case d < 0 || d == 0:
		return 0, i, qExact
	case d == 10: // 十, 十二
		n, j = 10, j+size
	default: // 二, 二十, 二十三
		n, j = d, j+size
		if r2, size2 := utf8.DecodeRuneInString(s[j:]); r2 == '十' {
			n, j = d*10, j+size2
		} else {
			return n, j, qExact
		}
	}
	if r2, size2 := utf8.DecodeRuneInString(s[j:]); kanjiDigit(r2) > 0 && kanjiDigit(r2) < 10 {
		n, j = n+kanjiDigit(r2), j+size2
	}
	return n, j, qExact
}

// matchNumber matches a counted expression at i: N日前, 3日ほど前, 二週間前,
// 数ヶ月前, 半年前, 3天前, 两个月前, or a month 5月に / 5月3日.
func (c *ctx) matchNumber(s string, i int) match {
	n, j, q := parseCount(s, i)
	if j == i {
		return match{}
	}
	if q == qExact && n >= 1 {
		if m, ok := c.matchAgoRange(s, j, n); ok {
			return m
		}
	}
	if v, e, ok := lookup(s, j, agoUnits); ok {
		if _, e2, ok := lookup(s, e, approx); ok {
			e = e2
		}
		if strings.HasPrefix(s[e:], "前") {
			e += len("前")
			u := unit(v)
			switch {
			case q == qFew:
				return match{end: e, sp: c.agoRange(u, 6, 2)}
			case q == qHalf:
				if u == uYear {
					return match{end: e, sp: c.ago(uMonth, 6)}
				}
				return match{}
			case n < 1:
				return match{}
			}
			switch u {
			case uDay:
				return c.dayExt(s, e, c.dayOf(n))
			case uWeek:
				return c.weekExt(s, e, n)
			case uMonth:
				return match{end: e, sp: c.ago(uMonth, n)}
			default:
				return c.yearExt(s, e, n)
			}
		}
	}
	if q != qExact || n < 1 || n > 12 || !strings.HasPrefix(s[j:], "月") {
		return match{}
	}
	e := j + len("月")
	m := time.Month(n)
	if d, e2, ok := dayOfMonth(s, e, m); ok {
		y := c.y
		if c.date(y, m, d).After(c.today) {
			y--
		}
		return match{end: e2, sp: c.days(y, m, d, 1), t: tAny}
	}
	// A bare month, or a third of one (5月末に), names a window only with a
	// suffix after it.
	whole := c.month(c.monthYear(m, false), m)
	if part := c.monthExt(s, e, whole); part.end > e {
		if _, _, ok := lookup(s, part.end, monthSuffixes); ok {
			part.t = tAny
			return part
		}
	}
	if _, _, ok := lookup(s, e, monthSuffixes); !ok {
		return match{}
	}
	return match{end: e, sp: whole, t: tAny}
}

// monthExt matches a third of the month sp at j: 末, 上旬, [の]初め, [の]半ば,
// [の]終わり (先月末, 5月の半ば, 上个月底); without one, the whole month.
// A word that goes on into another (頭痛, 初ライブ, 初めて, 始める) is not a
// third.
func (c *ctx) monthExt(s string, j int, sp span) match {
	k := skipNo(s, j)
	v, e, ok := lookup(s, k, monthParts)
	if !ok {
		return match{end: j, sp: sp}
	}
	r, _ := utf8.DecodeRuneInString(s[e:])
	switch w := s[k:e]; {
	case (w == "頭" || w == "初") && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Katakana, r)),
		strings.HasSuffix(w, "め") && strings.ContainsRune("てるたま", r):
		return match{end: j, sp: sp}
	}
	y, m, _ := sp.from.Date()
	from, to := c.date(y, m, 1+10*(v-1)), c.date(y, m, 11+10*(v-1))
	if v == 3 {
		to = sp.to
	}
	return match{end: e, sp: span{from, to}}
}

// rangeSeparators join the two counts of a range: 2、3日前, 2~3日前.
var rangeSeparators = []string{"、", ",", "~", "〜", "-", "・"}

// matchAgoRange matches the rest of a range of counts ago whose first count
// lo ends at j: 2、3日前, 2~3週間前, 二三日前 (two kanji digits in a row, one
// apart). The window runs from hi units ago through lo units ago.
func (c *ctx) matchAgoRange(s string, j, lo int) (match, bool) {
	k := j
	for _, sep := range rangeSeparators {
		if strings.HasPrefix(s[j:], sep) {
			k += len(sep)
			break
		}
	}
	if k == j {
		r1, _ := utf8.DecodeLastRuneInString(s[:j])
		r2, _ := utf8.DecodeRuneInString(s[j:])
		if d1, d2 := kanjiDigit(r1), kanjiDigit(r2); d1 < 1 || d1 > 8 || d2 != d1+1 {
			return match{}, false
		}
	}
	hi, e, q := parseCount(s, k)
	if e == k || q != qExact || hi <= lo {
		return match{}, false
	}
	v, e, ok := lookup(s, e, agoUnits)
	if !ok {
		return match{}, false
	}
	if _, e2, ok := lookup(s, e, approx); ok {
		e = e2
	}
	if !strings.HasPrefix(s[e:], "前") {
		return match{}, false
	}
	return match{end: e + len("前"), sp: c.agoRange(unit(v), hi, lo)}, true
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isAlnum(b byte) bool { return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
