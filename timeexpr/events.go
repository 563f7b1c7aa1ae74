package timeexpr

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
)

// event is an annual event; see events.
type event uint8

const (
	eShogatsu        event = iota + 1 // 正月
	eGantan                           // 元旦, new year's day, 신정, 새해
	eNenmatsu                         // 年末, 연말
	eNenmatsuNenshi                   // 年末年始, the holidays
	eOmisoka                          // 大晦日, new year's eve
	eChristmas                        // クリスマス, christmas, 圣诞, 크리스마스
	eChristmasEve                     // クリスマスイブ, christmas eve, 平安夜
	eGoldenWeek                       // ゴールデンウィーク
	eObon                             // お盆
	eChristmasDay                     // christmas day
	eNewYear                          // new year's
	eValentine                        // バレンタイン, valentine's day, 情人节
	eHalloween                        // ハロウィン, halloween, 万圣节, 할로윈
	eJuly4                            // the 4th of july
	eThanksgiving                     // thanksgiving
	eThanksgivingDay                  // thanksgiving day
	eEaster                           // easter
	eEasterSunday                     // easter sunday
	eMemorialDay                      // memorial day
	eLaborDay                         // labor day
	eSpringFestival                   // 春节, 过年
	eChuxi                            // 除夕
	eLantern                          // 元宵节
	eMidAutumn                        // 中秋
	eDragonBoat                       // 端午 (zh)
	eQixi                             // 七夕 (zh)
	eNationalDay                      // 国庆, 十一
	eMayDay                           // 五一, 劳动节
	eQingming                         // 清明
	eSeollal                          // 설날, 설, 구정
	eChuseok                          // 추석
	eChildrensDay                     // 어린이날, こどもの日, 端午 (ja)
	eNewYearStart                     // 연초
	eTanabata                         // 七夕 (ja)
	eSummerBreak                      // 夏休み
	eWinterBreak                      // 冬休み
	eSpringBreak                      // 春休み
)

// anchor says how an event's day in a given year is found.
type anchor uint8

const (
	aDate    anchor = iota // a fixed window: month m day d to month em day ed
	aWeekday               // weekday wd (Monday 0) of month m: the d-th, or the last for d < 0
	aEaster                // Easter Sunday, by the Gregorian computus
	aLunar                 // the date lunar[m] gives for the year
)

// eventDef defines an annual event of year y. An aDate event is the window
// [y-m-d, y-em-ed), a month out of 1–12 running into the year before (0 is
// December) or after (13 is January); any other is the window [day+from,
// day+to) around the anchor's day of year y.
type eventDef struct {
	a        anchor
	m, d     int
	em, ed   int
	wd       int
	from, to int
}

// events defines each annual event. The package documentation lists them.
var events = [...]eventDef{
	eShogatsu:       {m: 1, d: 1, em: 1, ed: 4},
	eGantan:         {m: 1, d: 1, em: 1, ed: 2},
	eNenmatsu:       {m: 12, d: 20, em: 13, ed: 1},
	eNenmatsuNenshi: {m: 12, d: 20, em: 13, ed: 4},
	eOmisoka:        {m: 12, d: 31, em: 13, ed: 1},
	eChristmas:      {m: 12, d: 24, em: 12, ed: 26},
	eChristmasEve:   {m: 12, d: 24, em: 12, ed: 25},
	eGoldenWeek:     {m: 4, d: 29, em: 5, ed: 6},
	eObon:           {m: 8, d: 13, em: 8, ed: 17},
	eChristmasDay:   {m: 12, d: 25, em: 12, ed: 26},
	eNewYear:        {m: 0, d: 31, em: 1, ed: 2}, // the new year's of 2025 began on 2024-12-31
	eValentine:      {m: 2, d: 14, em: 2, ed: 15},
	eHalloween:      {m: 10, d: 31, em: 11, ed: 1},
	eJuly4:          {m: 7, d: 4, em: 7, ed: 5},
	eNationalDay:    {m: 10, d: 1, em: 10, ed: 8},
	eMayDay:         {m: 5, d: 1, em: 5, ed: 6},
	eQingming:       {m: 4, d: 4, em: 4, ed: 7},
	eChildrensDay:   {m: 5, d: 5, em: 5, ed: 6},
	eNewYearStart:   {m: 1, d: 1, em: 1, ed: 16},
	eTanabata:       {m: 7, d: 7, em: 7, ed: 8},
	eSummerBreak:    {m: 7, d: 20, em: 9, ed: 1},
	eWinterBreak:    {m: 12, d: 25, em: 13, ed: 8},
	eSpringBreak:    {m: 3, d: 25, em: 4, ed: 8},

	eThanksgiving:    {a: aWeekday, m: 11, d: 4, wd: 3, to: 4}, // Thursday to Sunday
	eThanksgivingDay: {a: aWeekday, m: 11, d: 4, wd: 3, to: 1},
	eMemorialDay:     {a: aWeekday, m: 5, d: -1, wd: 0, from: -2, to: 1}, // Saturday to Monday
	eLaborDay:        {a: aWeekday, m: 9, d: 1, wd: 0, from: -2, to: 1},
	eEaster:          {a: aEaster, from: -2, to: 2}, // Good Friday to Easter Monday
	eEasterSunday:    {a: aEaster, to: 1},

	eSpringFestival: {a: aLunar, m: lNewYear, from: -1, to: 6}, // 除夕 to the 6th day
	eChuxi:          {a: aLunar, m: lNewYear, from: -1, to: 0},
	eLantern:        {a: aLunar, m: lNewYear, from: 14, to: 15},
	eMidAutumn:      {a: aLunar, m: lMidAutumn, to: 1},
	eDragonBoat:     {a: aLunar, m: lDragonBoat, to: 1},
	eQixi:           {a: aLunar, m: lQixi, to: 1},
	eSeollal:        {a: aLunar, m: lKoNewYear, from: -1, to: 2}, // the day before to the day after
	eChuseok:        {a: aLunar, m: lKoMidAutumn, from: -1, to: 2},
}

// The lunar tables: the Gregorian date of a day of the Chinese (and Korean)
// lunisolar calendar in each year from lunarFirst. The Korean calendar is
// reckoned at 135°E rather than 120°E, which in these years moves the new
// year of 2027 and 2028 and the 15th of the 8th month of 2040 one day later.
const (
	lNewYear     = iota // 1st day of the 1st month (春节)
	lMidAutumn          // 15th of the 8th month (中秋)
	lDragonBoat         // 5th of the 5th month (端午)
	lQixi               // 7th of the 7th month (七夕)
	lKoNewYear          // 설날
	lKoMidAutumn        // 추석

	lunarFirst = 2015
)

// monthDay is a date of a year: {month, day}.
type monthDay [2]uint8

// lunar holds the lunar tables for 2015–2040; an event of a year out of
// them names no window.
var lunar = [...][26]monthDay{
	lNewYear: {
		{2, 19}, {2, 8}, {1, 28}, {2, 16}, {2, 5}, {1, 25}, {2, 12}, {2, 1}, {1, 22}, {2, 10}, // 2015–2024
		{1, 29}, {2, 17}, {2, 6}, {1, 26}, {2, 13}, {2, 3}, {1, 23}, {2, 11}, {1, 31}, {2, 19}, // 2025–2034
		{2, 8}, {1, 28}, {2, 15}, {2, 4}, {1, 24}, {2, 12}, // 2035–2040
	},
	lMidAutumn: {
		{9, 27}, {9, 15}, {10, 4}, {9, 24}, {9, 13}, {10, 1}, {9, 21}, {9, 10}, {9, 29}, {9, 17},
		{10, 6}, {9, 25}, {9, 15}, {10, 3}, {9, 22}, {9, 12}, {10, 1}, {9, 19}, {9, 8}, {9, 27},
		{9, 16}, {10, 4}, {9, 24}, {9, 13}, {10, 2}, {9, 20},
	},
	lDragonBoat: {
		{6, 20}, {6, 9}, {5, 30}, {6, 18}, {6, 7}, {6, 25}, {6, 14}, {6, 3}, {6, 22}, {6, 10},
		{5, 31}, {6, 19}, {6, 9}, {5, 28}, {6, 16}, {6, 5}, {6, 24}, {6, 12}, {6, 1}, {6, 20},
		{6, 10}, {5, 30}, {6, 18}, {6, 7}, {5, 27}, {6, 14},
	},
	lQixi: {
		{8, 20}, {8, 9}, {8, 28}, {8, 17}, {8, 7}, {8, 25}, {8, 14}, {8, 4}, {8, 22}, {8, 10},
		{8, 29}, {8, 19}, {8, 8}, {8, 26}, {8, 16}, {8, 5}, {8, 24}, {8, 12}, {8, 1}, {8, 20},
		{8, 10}, {8, 28}, {8, 17}, {8, 7}, {8, 26}, {8, 14},
	},
	lKoNewYear: {
		{2, 19}, {2, 8}, {1, 28}, {2, 16}, {2, 5}, {1, 25}, {2, 12}, {2, 1}, {1, 22}, {2, 10},
		{1, 29}, {2, 17}, {2, 7}, {1, 27}, {2, 13}, {2, 3}, {1, 23}, {2, 11}, {1, 31}, {2, 19},
		{2, 8}, {1, 28}, {2, 15}, {2, 4}, {1, 24}, {2, 12},
	},
	lKoMidAutumn: {
		{9, 27}, {9, 15}, {10, 4}, {9, 24}, {9, 13}, {10, 1}, {9, 21}, {9, 10}, {9, 29}, {9, 17},
		{10, 6}, {9, 25}, {9, 15}, {10, 3}, {9, 22}, {9, 12}, {10, 1}, {9, 19}, {9, 8}, {9, 27},
		{9, 16}, {10, 4}, {9, 24}, {9, 13}, {10, 2}, {9, 21},
	},
}

// eventSpan returns event e of year y; a zero span (no window) when y is out
// of e's lunar table.
func (c *ctx) eventSpan(e event, y int) span {
	ev := &events[e]
	var m time.Month
	var d int
	switch ev.a {
	case aDate:
		return span{c.date(y, time.Month(ev.m), ev.d), c.date(y, time.Month(ev.em), ev.ed)}
	case aWeekday:
		m, d = time.Month(ev.m), nthWeekday(y, time.Month(ev.m), ev.d, ev.wd)
	case aEaster:
		m, d = easter(y)
	case aLunar:
		t := &lunar[ev.m]
		if y < lunarFirst || y-lunarFirst >= len(t) {
			return span{}
		}
		md := t[y-lunarFirst]
		m, d = time.Month(md[0]), int(md[1])
	}
	return span{c.date(y, m, d+ev.from), c.date(y, m, d+ev.to)}
}

// recentEvent returns the most recent occurrence of e that began on or
// before today, or, for ended, that ended on or before today ("last
// Christmas"); back > 0 goes that many years further back (the Christmas
// before last). It returns a zero span when the year it needs is out of e's
// lunar table.
func (c *ctx) recentEvent(e event, ended bool, back int) span {
	// An occurrence ends within a year of its start (冬休み: December 25 to
	// January 7), and new year's of next year begins on December 31.
	for y := c.y + 1; y >= c.y-2; y-- {
		sp := c.eventSpan(e, y)
		if sp.from.IsZero() {
			if y > c.y {
				continue
			}
			return span{}
		}
		edge := sp.from
		if ended {
			edge = sp.to
		}
		if !edge.After(c.today) {
			if back > 0 {
				return c.eventSpan(e, y-back)
			}
			return sp
		}
	}
	return span{}
}

// nthWeekday returns the day of the month of the n-th weekday wd (Monday 0)
// of month m of year y, or of the last one for n < 0.
func nthWeekday(y int, m time.Month, n, wd int) int {
	if n < 0 {
		last := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
		return last.Day() - (int(last.Weekday())+6-wd)%7
	}
	first := (int(time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Weekday()) + 6) % 7
	return 1 + (wd-first+7)%7 + 7*(n-1)
}

// easter returns the date of Easter Sunday of year y (the anonymous
// Gregorian computus; y > 0).
func easter(y int) (time.Month, int) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	n := h + l - 7*m + 114
	return time.Month(n / 31), n%31 + 1
}

// guard is a condition a literal's context must meet (see admits).
type guard uint8

const (
	gKo      guard = iota + 1 // a Korean word: no Hangul syllable right before it (not 압구정 for 구정)
	gSeol                     // 설: gKo, and after it 에, 엔, a holiday word, or no Hangul at all
	gNumeral                  // 五一: no digit before, and no digit or counter after (十五一个, 五一个)
	gShiyi                    // 十一: no digit before, and a holiday word after (十一假期, not 十一个人, 十一月)
	gZh                       // 前年: no kana on either side (Japanese 前年の is "the year before")
)

var (
	// seolAfter may follow 설 (설에, 설 연휴); see gSeol.
	seolAfter = []string{"에", "엔", " 연휴", " 명절", " 당일", " 쇠"}
	// shiyiAfter must follow 十一 (十一假期, 十一的时候).
	shiyiAfter = []string{
		"假", "长假", "長假", "黄金周", "黃金週", "的时候", "的時候", "期间", "期間",
		"放假", "那几天", "那幾天", "国庆", "國慶",
	}
	// zhCounters may not follow 五一: a number goes on (五一个, 五一次).
	zhCounters = "个個次号號元块塊岁歲米点點分秒天年月日位名件本张張只隻条條遍倍%"
)

// eventLiterals are the CJK annual events: each names the most recent
// occurrence that began on or before today (kEvent). alt is the event when
// the clause is Japanese (七夕 is July 7th in Japan, the 7th of the 7th lunar
// month in China). not lists words after which (past one space) the literal
// is an object, not a time (圣诞树, 크리스마스 트리). void marks greetings,
// consumed without a window (メリークリスマス, 春节快乐).
var eventLiterals = []lit{
	// Japanese.
	{s: "正月", k: kEvent, n: int(eShogatsu)}, {s: "お正月", k: kEvent, n: int(eShogatsu)},
	{s: "元旦", k: kEvent, n: int(eGantan)}, {s: "元日", k: kEvent, n: int(eGantan)},
	{s: "年末", k: kEvent, n: int(eNenmatsu)}, {s: "年末年始", k: kEvent, n: int(eNenmatsuNenshi)},
	{s: "大晦日", k: kEvent, n: int(eOmisoka)},
	{s: "クリスマス", k: kEvent, n: int(eChristmas)},
	{s: "クリスマスイブ", k: kEvent, n: int(eChristmasEve)},
	{s: "クリスマスイヴ", k: kEvent, n: int(eChristmasEve)},
	{s: "ゴールデンウィーク", k: kEvent, n: int(eGoldenWeek)},
	{s: "お盆", k: kEvent, n: int(eObon)},
	{s: "夏休み", k: kEvent, n: int(eSummerBreak)}, {s: "冬休み", k: kEvent, n: int(eWinterBreak)},
	{s: "春休み", k: kEvent, n: int(eSpringBreak)},
	{s: "バレンタイン", k: kEvent, n: int(eValentine)}, {s: "バレンタインデー", k: kEvent, n: int(eValentine)},
	{s: "ハロウィン", k: kEvent, n: int(eHalloween)}, {s: "ハロウィーン", k: kEvent, n: int(eHalloween)},
	{s: "こどもの日", k: kEvent, n: int(eChildrensDay)}, {s: "子供の日", k: kEvent, n: int(eChildrensDay)},
	{s: "七夕", k: kEvent, n: int(eQixi), alt: eTanabata},
	{s: "メリークリスマス", k: kEvent, n: int(eChristmas), void: true},
	{s: "ハッピーハロウィン", k: kEvent, n: int(eHalloween), void: true},

	// Chinese (simplified and traditional).
	{s: "春节", k: kEvent, n: int(eSpringFestival)}, {s: "春節", k: kEvent, n: int(eSpringFestival)},
	{s: "过年", k: kEvent, n: int(eSpringFestival)}, {s: "過年", k: kEvent, n: int(eSpringFestival)},
	{s: "除夕", k: kEvent, n: int(eChuxi)}, {s: "除夕夜", k: kEvent, n: int(eChuxi)},
	{s: "大年三十", k: kEvent, n: int(eChuxi)}, {s: "年三十", k: kEvent, n: int(eChuxi)},
	{s: "元宵节", k: kEvent, n: int(eLantern)}, {s: "元宵節", k: kEvent, n: int(eLantern)},
	{s: "中秋", k: kEvent, n: int(eMidAutumn)}, {s: "中秋节", k: kEvent, n: int(eMidAutumn)},
	{s: "中秋節", k: kEvent, n: int(eMidAutumn)},
	{s: "端午", k: kEvent, n: int(eDragonBoat), alt: eChildrensDay},
	{s: "端午节", k: kEvent, n: int(eDragonBoat)}, {s: "端午節", k: kEvent, n: int(eDragonBoat)},
	{s: "国庆", k: kEvent, n: int(eNationalDay)}, {s: "国庆节", k: kEvent, n: int(eNationalDay)},
	{s: "國慶", k: kEvent, n: int(eNationalDay)}, {s: "國慶節", k: kEvent, n: int(eNationalDay)},
	{s: "十一", k: kEvent, n: int(eNationalDay), g: gShiyi},
	{s: "五一", k: kEvent, n: int(eMayDay), g: gNumeral},
	{s: "五一劳动节", k: kEvent, n: int(eMayDay), g: gNumeral},
	{s: "劳动节", k: kEvent, n: int(eMayDay)}, {s: "勞動節", k: kEvent, n: int(eMayDay)},
	{s: "清明", k: kEvent, n: int(eQingming), not: []string{"上河"}}, // not the painting 清明上河图
	{s: "清明节", k: kEvent, n: int(eQingming)},
	{s: "清明節", k: kEvent, n: int(eQingming)},
	{s: "圣诞", k: kEvent, n: int(eChristmas), not: zhChristmasThings},
	{s: "圣诞节", k: kEvent, n: int(eChristmas), not: zhChristmasThings},
	{s: "聖誕", k: kEvent, n: int(eChristmas), not: zhChristmasThings},
	{s: "聖誕節", k: kEvent, n: int(eChristmas), not: zhChristmasThings},
	{s: "平安夜", k: kEvent, n: int(eChristmasEve)},
	{s: "情人节", k: kEvent, n: int(eValentine)}, {s: "情人節", k: kEvent, n: int(eValentine)},
	{s: "万圣节", k: kEvent, n: int(eHalloween)}, {s: "萬聖節", k: kEvent, n: int(eHalloween)},
	{s: "春节快乐", k: kEvent, n: int(eSpringFestival), void: true},
	{s: "春節快樂", k: kEvent, n: int(eSpringFestival), void: true},
	{s: "过年好", k: kEvent, n: int(eSpringFestival), void: true},
	{s: "過年好", k: kEvent, n: int(eSpringFestival), void: true},
	{s: "圣诞快乐", k: kEvent, n: int(eChristmas), void: true},
	{s: "圣诞节快乐", k: kEvent, n: int(eChristmas), void: true},
	{s: "聖誕快樂", k: kEvent, n: int(eChristmas), void: true},
	{s: "中秋快乐", k: kEvent, n: int(eMidAutumn), void: true},
	{s: "中秋节快乐", k: kEvent, n: int(eMidAutumn), void: true},
	{s: "国庆快乐", k: kEvent, n: int(eNationalDay), void: true},
	{s: "国庆节快乐", k: kEvent, n: int(eNationalDay), void: true},
	{s: "元旦快乐", k: kEvent, n: int(eGantan), void: true},
	{s: "端午节快乐", k: kEvent, n: int(eDragonBoat), void: true},
	{s: "端午安康", k: kEvent, n: int(eDragonBoat), void: true},
	{s: "元宵节快乐", k: kEvent, n: int(eLantern), void: true},
	{s: "情人节快乐", k: kEvent, n: int(eValentine), void: true},
	{s: "七夕快乐", k: kEvent, n: int(eQixi), void: true},
	{s: "万圣节快乐", k: kEvent, n: int(eHalloween), void: true},

	// Korean.
	{s: "설날", k: kEvent, n: int(eSeollal), g: gKo},
	{s: "설", k: kEvent, n: int(eSeollal), g: gSeol},
	{s: "구정", k: kEvent, n: int(eSeollal), g: gKo, not: []string{"물"}},
	{s: "추석", k: kEvent, n: int(eChuseok), g: gKo},
	{s: "한가위", k: kEvent, n: int(eChuseok), g: gKo},
	{s: "크리스마스", k: kEvent, n: int(eChristmas), g: gKo, not: koChristmasThings},
	{s: "크리스마스 이브", k: kEvent, n: int(eChristmasEve), g: gKo},
	{s: "크리스마스이브", k: kEvent, n: int(eChristmasEve), g: gKo},
	{s: "새해", k: kEvent, n: int(eGantan), g: gKo, not: []string{"복"}},
	{s: "신정", k: kEvent, n: int(eGantan), g: gKo, not: []string{"부", "동", "권"}},
	{s: "어린이날", k: kEvent, n: int(eChildrensDay), g: gKo},
	{s: "연말", k: kEvent, n: int(eNenmatsu), g: gKo, not: []string{"정산"}},
	{s: "연초", k: kEvent, n: int(eNewYearStart), g: gKo},
	{s: "할로윈", k: kEvent, n: int(eHalloween), g: gKo}, {s: "핼러윈", k: kEvent, n: int(eHalloween), g: gKo},
	{s: "발렌타인데이", k: kEvent, n: int(eValentine), g: gKo},
	{s: "밸런타인데이", k: kEvent, n: int(eValentine), g: gKo},
	{s: "메리 크리스마스", k: kEvent, n: int(eChristmas), void: true},
	{s: "메리크리스마스", k: kEvent, n: int(eChristmas), void: true},
}

var (
	zhChristmasThings = []string{"树", "樹", "老人", "礼物", "禮物", "卡", "歌", "帽"}
	koChristmasThings = []string{"트리", "선물", "카드", "캐럴", "캐롤", "케이크", "노래", "영화"}
)

// admits reports whether literal l at s[i:j] meets its guard and is not
// followed by one of its not words. bound says that the literal starts a
// word of its own (the scan); after a prefix (작년추석, 去年十一假期) the
// Korean word-start condition does not apply.
func admits(s string, i, j int, l lit, bound bool) bool {
	if l.not != nil && hasPrefixAny(strings.TrimPrefix(s[j:], " "), l.not) {
		return false
	}
	if l.g == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	next, _ := utf8.DecodeRuneInString(s[j:])
	switch l.g {
	case gKo:
		return !bound || !isHangul(prev)
	case gSeol:
		if bound && isHangul(prev) {
			return false
		}
		return j == len(s) || next != ' ' && !isHangul(next) || hasPrefixAny(s[j:], seolAfter)
	case gNumeral:
		return !isDigitRune(prev) && !isDigitRune(next) && !strings.ContainsRune(zhCounters, next)
	case gShiyi:
		return !isDigitRune(prev) && hasPrefixAny(s[j:], shiyiAfter)
	case gZh:
		return !isKana(prev) && !isKana(next)
	}
	return true
}

// isDigitRune reports whether r is an ASCII or kanji digit (〇 to 十).
func isDigitRune(r rune) bool {
	return r < utf8.RuneSelf && isDigit(byte(r)) || kanjiDigit(r) >= 0
}

// isKana reports whether r is hiragana, katakana or ー.
func isKana(r rune) bool {
	return 'ぁ' <= r && r <= 'ゖ' || 'ァ' <= r && r <= 'ヺ' || r == 'ー'
}

// eventOf returns the event literal l at s[i:j] names: its alt in a Japanese
// clause (lang.Detect with the hint of ParseLang), else its own.
func (c *ctx) eventOf(s string, i, j int, l lit) event {
	if l.alt != 0 {
		if cs, ce := clause(s, i, j); lang.Detect(s[cs:ce], c.hint) == lang.Japanese {
			return l.alt
		}
	}
	return event(l.n)
}

// eventAt matches an event literal (not a greeting) at k, after a year or a
// prefix (去年の, 작년, 今度の), and returns its event and end.
func (c *ctx) eventAt(s string, k int) (event, int, bool) {
	r, _ := utf8.DecodeRuneInString(s[k:])
	for _, l := range litIndex[r] {
		j := k + len(l.s)
		if l.k != kEvent || l.void || !strings.HasPrefix(s[k:], l.s) || !admits(s, k, j, l, false) {
			continue
		}
		return c.eventOf(s, k, j, l), j, true
	}
	return 0, k, false
}
