package timeexpr

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/omoide/omoide/lang"
	"golang.org/x/text/unicode/norm"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// at parses "2006-01-02" or "2006-01-02 15:04" in loc.
func at(t testing.TB, loc *time.Location, v string) time.Time {
	t.Helper()
	layout := "2006-01-02 15:04"
	if len(v) == len("2006-01-02") {
		layout = "2006-01-02"
	}
	tm, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

type parseCase struct {
	text     string
	expr     string // "" when no window is expected
	from, to string // in the test location; see at
	only     bool
}

// checkParse runs cases relative to now in loc.
func checkParse(t *testing.T, loc *time.Location, now string, cases []parseCase) {
	t.Helper()
	n := at(t, loc, now)
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			w, ok := Parse(tc.text, n, loc)
			if tc.expr == "" {
				if ok {
					t.Fatalf("Parse(%q) = %q [%v, %v), want no window", tc.text, w.Expr, w.From, w.To)
				}
				return
			}
			if !ok {
				t.Fatalf("Parse(%q) found no window, want %q", tc.text, tc.expr)
			}
			from, to := at(t, loc, tc.from), at(t, loc, tc.to)
			if w.Expr != tc.expr || !w.From.Equal(from) || !w.To.Equal(to) || w.Only != tc.only {
				t.Errorf("Parse(%q) = %q [%s, %s) only=%v, want %q [%s, %s) only=%v", tc.text,
					w.Expr, w.From.Format("2006-01-02 15:04"), w.To.Format("2006-01-02 15:04"), w.Only,
					tc.expr, tc.from, tc.to, tc.only)
			}
			if w.From.Location() != loc || w.To.Location() != loc {
				t.Errorf("Parse(%q) window in %v/%v, want %v", tc.text, w.From.Location(), w.To.Location(), loc)
			}
			if got := Normalize(tc.text[w.Start:w.End]); got != w.Expr {
				t.Errorf("Parse(%q) written [%d, %d) %q normalizes to %q, not %q", tc.text, w.Start, w.End, tc.text[w.Start:w.End], got, w.Expr)
			}
		})
	}
}

// Now is Sunday 2025-12-21 20:00 in Tokyo: the current week began on Monday
// the 15th, the previous one on the 8th.
const sunday = "2025-12-21 20:00"

func TestParseJapanese(t *testing.T) {
	checkParse(t, mustLoad(t, "Asia/Tokyo"), sunday, []parseCase{
		{"今日", "今日", "2025-12-21", "2025-12-22", true},
		{"本日は", "本日", "2025-12-21", "2025-12-22", true},
		{"今朝の夢", "今朝", "2025-12-21 04:00", "2025-12-21 12:00", false},
		{"昨日", "昨日", "2025-12-20", "2025-12-21", true},
		{"きのうね", "きのう", "2025-12-20", "2025-12-21", true},
		{"昨夜", "昨夜", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"昨晩", "昨晩", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"ゆうべ", "ゆうべ", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"昨日の夜", "昨日の夜", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"昨日の朝", "昨日の朝", "2025-12-20 04:00", "2025-12-20 12:00", true},
		{"おととい", "おととい", "2025-12-19", "2025-12-20", true},
		{"一昨日", "一昨日", "2025-12-19", "2025-12-20", true},
		{"3日前", "3日前", "2025-12-18", "2025-12-19", true},
		{"３日前", "3日前", "2025-12-18", "2025-12-19", true},
		{"三日前", "三日前", "2025-12-18", "2025-12-19", true},
		{"十日前", "十日前", "2025-12-11", "2025-12-12", true},
		{"二十日前", "二十日前", "2025-12-01", "2025-12-02", true},
		{"3日ほど前の夜", "3日ほど前の夜", "2025-12-18 18:00", "2025-12-19 06:00", true},
		{"数日前", "数日前", "2025-12-15", "2025-12-20", true},
		{"2、3日前", "2、3日前", "2025-12-18", "2025-12-20", true},
		{"２～３日前に行った店", "2~3日前", "2025-12-18", "2025-12-20", false},
		{"2〜4日前", "2〜4日前", "2025-12-17", "2025-12-20", true},
		{"二三日前", "二三日前", "2025-12-18", "2025-12-20", true},
		{"二、三日前", "二、三日前", "2025-12-18", "2025-12-20", true},
		{"2、3週間前", "2、3週間前", "2025-11-24", "2025-12-08", true},
		{"1、2ヶ月前", "1、2ヶ月前", "2025-10-01", "2025-12-01", true},
		{"2、3日ほど前", "2、3日ほど前", "2025-12-18", "2025-12-20", true},
		{"3、2日前", "2日前", "2025-12-19", "2025-12-20", false}, // not a range: the days of 2日前 alone
		{"二四日前", "", "", "", false},
		{"2、3個", "", "", "", false},
		{"先週", "先週", "2025-12-08", "2025-12-15", true},
		{"今週", "今週", "2025-12-15", "2025-12-22", true},
		{"先々週", "先々週", "2025-12-01", "2025-12-08", true},
		{"2週間前", "2週間前", "2025-12-01", "2025-12-08", true},
		{"二週間前", "二週間前", "2025-12-01", "2025-12-08", true},
		{"数週間前", "数週間前", "2025-11-03", "2025-12-08", true},
		{"先週の金曜", "先週の金曜", "2025-12-12", "2025-12-13", true},
		{"先週の金曜の夜", "先週の金曜の夜", "2025-12-12 18:00", "2025-12-13 06:00", true},
		{"月曜", "月曜", "2025-12-15", "2025-12-16", true},
		{"日曜日", "日曜日", "2025-12-14", "2025-12-15", true}, // today is Sunday: a week ago
		{"この前の土曜", "この前の土曜", "2025-12-20", "2025-12-21", true},
		{"先月", "先月", "2025-11-01", "2025-12-01", true},
		{"今月", "今月", "2025-12-01", "2025-12-22", true},
		{"先々月", "先々月", "2025-10-01", "2025-11-01", true},
		{"先月末", "先月末", "2025-11-21", "2025-12-01", true},
		{"先月の初めに話した", "先月の初め", "2025-11-01", "2025-11-11", true},
		{"先月の半ば", "先月の半ば", "2025-11-11", "2025-11-21", true},
		{"先月上旬", "先月上旬", "2025-11-01", "2025-11-11", true},
		{"先月下旬", "先月下旬", "2025-11-21", "2025-12-01", true},
		{"今月の頭", "今月の頭", "2025-12-01", "2025-12-11", true},
		{"今月末", "今月末", "2025-12-21", "2025-12-22", true}, // clipped at the end of today
		{"先月の頭痛", "先月", "2025-11-01", "2025-12-01", false},
		{"先月の初ライブ", "先月", "2025-11-01", "2025-12-01", false},
		{"先月初めて行った", "先月", "2025-11-01", "2025-12-01", false},
		{"5月の終わりに", "5月の終わり", "2025-05-21", "2025-06-01", true},
		{"5月末に", "5月末", "2025-05-21", "2025-06-01", true},
		{"9月中旬は", "9月中旬", "2025-09-11", "2025-09-21", true},
		{"誕生日は5月末", "", "", "", false}, // a bare month needs a suffix, with a third too
		{"5月上旬生まれ", "", "", "", false},
		{"5月の半ば頑張った", "5月", "2025-05-01", "2025-06-01", false}, // no suffix after the third: the month
		{"去年の2月末", "去年の2月末", "2024-02-21", "2024-03-01", true},
		{"上个月底", "上个月底", "2025-11-21", "2025-12-01", true},
		{"3ヶ月前", "3ヶ月前", "2025-09-01", "2025-10-01", true},
		{"3か月前", "3か月前", "2025-09-01", "2025-10-01", true},
		{"3カ月前", "3カ月前", "2025-09-01", "2025-10-01", true},
		{"三ヶ月前", "三ヶ月前", "2025-09-01", "2025-10-01", true},
		{"数ヶ月前", "数ヶ月前", "2025-06-01", "2025-11-01", true},
		{"半年前", "半年前", "2025-06-01", "2025-07-01", true},
		{"去年", "去年", "2024-01-01", "2025-01-01", true},
		{"昨年", "昨年", "2024-01-01", "2025-01-01", true},
		{"今年", "今年", "2025-01-01", "2025-12-22", true},
		{"おととし", "おととし", "2023-01-01", "2024-01-01", true},
		{"一昨年", "一昨年", "2023-01-01", "2024-01-01", true},
		{"3年前の夏", "3年前の夏", "2022-06-01", "2022-09-01", true},
		{"5月に", "5月", "2025-05-01", "2025-06-01", true},
		{"5月の", "5月", "2025-05-01", "2025-06-01", true},
		{"五月に", "五月", "2025-05-01", "2025-06-01", true},
		{"5月3日", "5月3日", "2025-05-03", "2025-05-04", true},
		{"12月25日", "12月25日", "2024-12-25", "2024-12-26", true}, // this year's is ahead
		{"去年の5月", "去年の5月", "2024-05-01", "2024-06-01", true},
		{"去年の春", "去年の春", "2024-03-01", "2024-06-01", true},
		{"去年の夏", "去年の夏", "2024-06-01", "2024-09-01", true},
		{"去年の秋", "去年の秋", "2024-09-01", "2024-12-01", true},
		{"去年の冬", "去年の冬", "2024-12-01", "2025-03-01", true},
		{"この夏", "この夏", "2025-06-01", "2025-09-01", true},
		{"この冬", "この冬", "2025-12-01", "2025-12-22", true},
		{"去年の今頃", "去年の今頃", "2024-12-14", "2024-12-29", true},
		{"週末", "週末", "2025-12-20", "2025-12-22", true}, // today is Sunday: this weekend
		{"土日", "土日", "2025-12-20", "2025-12-22", true},
		{"今週末", "今週末", "2025-12-20", "2025-12-22", true},
		{"先週末", "先週末", "2025-12-13", "2025-12-15", true},
		{"先週の週末", "先週の週末", "2025-12-13", "2025-12-15", true},
		{"この前の週末", "この前の週末", "2025-12-13", "2025-12-15", true},
		{"こないだの週末", "こないだの週末", "2025-12-13", "2025-12-15", true},
		{"年末", "年末", "2025-12-20", "2025-12-22", true},
		{"去年の年末", "去年の年末", "2024-12-20", "2025-01-01", true},
		{"去年末", "去年末", "2024-12-20", "2025-01-01", true},
		{"正月", "正月", "2025-01-01", "2025-01-04", true},
		{"お正月", "お正月", "2025-01-01", "2025-01-04", true},
		{"クリスマス", "クリスマス", "2024-12-24", "2024-12-26", true}, // this year's is ahead
		{"ゴールデンウィーク", "ゴールデンウィーク", "2025-04-29", "2025-05-06", true},
		{"さっき", "さっき", "2025-12-21", "2025-12-22", true},

		// Several expressions: the leftmost wins; future ones are skipped.
		{"昨日と今日", "昨日", "2025-12-20", "2025-12-21", false},
		{"来週じゃなくて先週の話", "先週", "2025-12-08", "2025-12-15", false},
		{"去年の夏に行った海", "去年の夏", "2024-06-01", "2024-09-01", false},

		// No window.
		{"この前", "", "", "", false},
		{"こないだ話したやつ", "", "", "", false},
		{"先日", "", "", "", false},
		{"明日", "", "", "", false},
		{"来週", "", "", "", false},
		{"来週末に旅行", "", "", "", false},
		{"来月", "", "", "", false},
		{"来年の夏", "", "", "", false},
		{"毎週月曜に", "", "", "", false},
		{"毎週末", "", "", "", false},
		{"5月生まれ", "", "", "", false},
		{"誕生日は5月", "", "", "", false},
		{"13月に", "", "", "", false},
		{"2月30日", "", "", "", false},
		{"0日前", "", "", "", false},
		{"一緒に行こう", "", "", "", false},
		{"ラーメン食べたい", "", "", "", false},
		{"", "", "", "", false},
	})
}

func TestParseEnglish(t *testing.T) {
	checkParse(t, mustLoad(t, "Asia/Tokyo"), sunday, []parseCase{
		{"yesterday", "yesterday", "2025-12-20", "2025-12-21", true},
		{"Today", "today", "2025-12-21", "2025-12-22", true},
		{"earlier today", "earlier today", "2025-12-21", "2025-12-22", true},
		{"this morning", "this morning", "2025-12-21 04:00", "2025-12-21 12:00", true},
		{"yesterday evening", "yesterday evening", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"last night", "last night", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"the day before yesterday", "the day before yesterday", "2025-12-19", "2025-12-20", true},
		{"3 days ago", "3 days ago", "2025-12-18", "2025-12-19", true},
		{"three days ago", "three days ago", "2025-12-18", "2025-12-19", true},
		{"a few days ago", "a few days ago", "2025-12-15", "2025-12-20", true},
		{"several days ago", "several days ago", "2025-12-15", "2025-12-20", true},
		{"a couple of days ago", "a couple of days ago", "2025-12-18", "2025-12-21", true},
		{"Last Week", "last week", "2025-12-08", "2025-12-15", true},
		{"a week ago", "a week ago", "2025-12-08", "2025-12-15", true},
		{"this week", "this week", "2025-12-15", "2025-12-22", true},
		{"two weeks ago", "two weeks ago", "2025-12-01", "2025-12-08", true},
		{"the week before last", "the week before last", "2025-12-01", "2025-12-08", true},
		{"last month", "last month", "2025-11-01", "2025-12-01", true},
		{"this month", "this month", "2025-12-01", "2025-12-22", true},
		{"2 months ago", "2 months ago", "2025-10-01", "2025-11-01", true},
		{"half a year ago", "half a year ago", "2025-06-01", "2025-07-01", true},
		{"last year", "last year", "2024-01-01", "2025-01-01", true},
		{"this year", "this year", "2025-01-01", "2025-12-22", true},
		{"in May", "in may", "2025-05-01", "2025-06-01", true},
		{"last May", "last may", "2025-05-01", "2025-06-01", true},
		{"in sept", "in sept", "2025-09-01", "2025-10-01", true},
		{"in May 2023", "in may 2023", "2023-05-01", "2023-06-01", true},
		{"during december 2025", "during december 2025", "2025-12-01", "2025-12-22", true},
		{"in may 2026", "", "", "", false},
		{"in may 99", "in may", "2025-05-01", "2025-06-01", false},
		{"last summer", "last summer", "2025-06-01", "2025-09-01", true},
		{"last spring", "last spring", "2025-03-01", "2025-06-01", true},
		{"last fall", "last fall", "2025-09-01", "2025-12-01", true},
		{"last autumn", "last autumn", "2025-09-01", "2025-12-01", true},
		{"last winter", "last winter", "2024-12-01", "2025-03-01", true}, // this one has not ended
		{"last weekend", "last weekend", "2025-12-13", "2025-12-15", true},
		{"this past weekend", "this past weekend", "2025-12-13", "2025-12-15", true},
		{"this weekend", "this weekend", "2025-12-20", "2025-12-22", true},
		{"over the weekend", "over the weekend", "2025-12-20", "2025-12-22", true},
		{"on Monday", "on monday", "2025-12-15", "2025-12-16", true},
		{"last Monday", "last monday", "2025-12-15", "2025-12-16", true},
		{"on sunday", "on sunday", "2025-12-14", "2025-12-15", true},
		{"what did we talk about yesterday?", "yesterday", "2025-12-20", "2025-12-21", true},
		{"What did we discuss last week?", "last week", "2025-12-08", "2025-12-15", true},
		{"remind me what we talked about last month", "last month", "2025-11-01", "2025-12-01", true},
		{"what did we eat yesterday?", "yesterday", "2025-12-20", "2025-12-21", false},
		{"the movie we saw last   week", "last   week", "2025-12-08", "2025-12-15", false},

		{"I may go", "", "", "", false},
		{"todays news", "", "", "", false},
		{"over the weekends", "", "", "", false},
		{"next week", "", "", "", false},
		{"tomorrow", "", "", "", false},
		{"last time", "", "", "", false},
		{"0 days ago", "", "", "", false},
		{"12345 days ago", "", "", "", false},
		{"the other day", "", "", "", false},
		{"3 days", "", "", "", false},
	})
}

func TestParseChinese(t *testing.T) {
	checkParse(t, mustLoad(t, "Asia/Tokyo"), sunday, []parseCase{
		{"昨天", "昨天", "2025-12-20", "2025-12-21", true},
		{"前天", "前天", "2025-12-19", "2025-12-20", true},
		{"今天", "今天", "2025-12-21", "2025-12-22", true},
		{"上周", "上周", "2025-12-08", "2025-12-15", true},
		{"上週", "上週", "2025-12-08", "2025-12-15", true},
		{"上个星期", "上个星期", "2025-12-08", "2025-12-15", true},
		{"上個星期", "上個星期", "2025-12-08", "2025-12-15", true},
		{"上周末", "上周末", "2025-12-13", "2025-12-15", true},
		{"这周", "这周", "2025-12-15", "2025-12-22", true},
		{"本周", "本周", "2025-12-15", "2025-12-22", true},
		{"上个月", "上个月", "2025-11-01", "2025-12-01", true},
		{"上個月", "上個月", "2025-11-01", "2025-12-01", true},
		{"这个月", "这个月", "2025-12-01", "2025-12-22", true},
		{"本月", "本月", "2025-12-01", "2025-12-22", true},
		{"去年夏天", "去年夏天", "2024-06-01", "2024-09-01", true},
		{"今年", "今年", "2025-01-01", "2025-12-22", true},
		{"3天前", "3天前", "2025-12-18", "2025-12-19", true},
		{"三天前", "三天前", "2025-12-18", "2025-12-19", true},
		{"两天前", "两天前", "2025-12-19", "2025-12-20", true},
		{"几天前", "几天前", "2025-12-15", "2025-12-20", true},
		{"两个月前", "两个月前", "2025-10-01", "2025-11-01", true},
		{"上周我们聊了什么", "上周", "2025-12-08", "2025-12-15", true},
		{"上周我们去了哪里", "上周", "2025-12-08", "2025-12-15", false},
		{"上周六", "上周六", "2025-12-13", "2025-12-14", true},
		{"上个礼拜天", "上个礼拜天", "2025-12-14", "2025-12-15", true},
		{"这周六", "这周六", "2025-12-20", "2025-12-21", true},
		{"这个星期天", "这个星期天", "2025-12-21", "2025-12-22", true},
		{"周六", "周六", "2025-12-20", "2025-12-21", true},
		{"星期天", "星期天", "2025-12-14", "2025-12-15", true}, // today is Sunday: a week ago
		{"周六晚上", "周六晚上", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"上周一下午", "上周一下午", "2025-12-08 12:00", "2025-12-08 18:00", true},
		{"周五,我们去了海边", "周五", "2025-12-19", "2025-12-20", false},
		{"上周一起吃饭", "上周", "2025-12-08", "2025-12-15", false}, // 一起: together
		{"这周天气很好", "这周", "2025-12-15", "2025-12-22", false}, // 天气: the weather
		{"上周三个人去了", "上周", "2025-12-08", "2025-12-15", false},
		{"先週六本木に行った", "先週", "2025-12-08", "2025-12-15", false},
		{"一周一次", "", "", "", false},
		{"週一でジムに行ってる", "", "", "", false}, // Japanese: once a week
		{"周日本", "", "", "", false},
		{"每周六", "", "", "", false},
		{"明天", "", "", "", false},
		{"下周", "", "", "", false},
		{"下周六", "", "", "", false},
		{"下个周六", "", "", "", false},
	})
}

// Now is Tuesday 2025-12-16 20:00 in Tokyo: the last weekend was the 13th
// and 14th, the coming one is the 20th and 21st.
const tuesday = "2025-12-16 20:00"

// planCase pairs a message about something still to come, which names no
// window, with one about the past, which names expr [from, to).
type planCase struct {
	plan     string
	past     string
	expr     string
	from, to string
	only     bool
}

// checkPlans runs both messages of every case relative to now in loc.
func checkPlans(t *testing.T, loc *time.Location, now string, cases []planCase) {
	t.Helper()
	var pc []parseCase
	for _, c := range cases {
		pc = append(pc, parseCase{text: c.plan}, parseCase{c.past, c.expr, c.from, c.to, c.only})
	}
	checkParse(t, loc, now, pc)
}

// TestParseComing covers the words that point ahead: a day or a weekend they
// mark as coming is after today, and names no window.
func TestParseComing(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	t.Run("ja", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"今度の週末、富士山に登りたい", "先週末、富士山に登った", "先週末", "2025-12-13", "2025-12-15", false},
			{"今度週末に会おう", "この前の週末に会った", "この前の週末", "2025-12-13", "2025-12-15", false},
			{"今度の土曜に映画", "この前の土曜に映画", "この前の土曜", "2025-12-13", "2025-12-14", false},
			{"今度の日曜日の夜", "この間の日曜日の夜", "この間の日曜日の夜", "2025-12-14 18:00", "2025-12-15 06:00", true},
			{"次の週末", "この前の週末", "この前の週末", "2025-12-13", "2025-12-15", true},
			{"次の日曜は空いてる？", "この前の日曜は空いてた？", "この前の日曜", "2025-12-14", "2025-12-15", false},
			{"来る土曜日に", "先週の土曜日に", "先週の土曜日", "2025-12-13", "2025-12-14", true},
			{"この金曜に", "この月曜に", "この月曜", "2025-12-15", "2025-12-16", true},
			{"今週末", "先週末", "先週末", "2025-12-13", "2025-12-15", true},
			{"来週の土曜", "先週の土曜", "先週の土曜", "2025-12-13", "2025-12-14", true},
			{"今度の正月", "正月", "正月", "2025-01-01", "2025-01-04", true},
			{"来月", "先月", "先月", "2025-11-01", "2025-12-01", true},
			{"来年", "去年", "去年", "2024-01-01", "2025-01-01", true},
		})
	})
	t.Run("en", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"next weekend", "last weekend", "last weekend", "2025-12-13", "2025-12-15", true},
			{"this weekend", "this past weekend", "this past weekend", "2025-12-13", "2025-12-15", true},
			{"this coming weekend", "over the weekend", "over the weekend", "2025-12-13", "2025-12-15", true},
			{"the weekend after next", "the weekend", "the weekend", "2025-12-13", "2025-12-15", true},
			{"this coming Saturday", "this past Saturday", "this past saturday", "2025-12-13", "2025-12-14", true},
			{"next Saturday", "last Saturday", "last saturday", "2025-12-13", "2025-12-14", true},
			{"on Saturday next week", "on Saturday last week", "on saturday last week", "2025-12-13", "2025-12-14", true},
			{"on Saturday this week", "on Monday this week", "on monday this week", "2025-12-15", "2025-12-16", true},
			{"next month", "last month", "last month", "2025-11-01", "2025-12-01", true},
		})
	})
	t.Run("zh", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"下个周末", "上个周末", "上个周末", "2025-12-13", "2025-12-15", true},
			{"下一个周末", "上周末", "上周末", "2025-12-13", "2025-12-15", true},
			{"这个周末", "上周末", "上周末", "2025-12-13", "2025-12-15", true},
			{"這個週末", "上週末", "上週末", "2025-12-13", "2025-12-15", true},
			{"下周末", "上周末", "上周末", "2025-12-13", "2025-12-15", true},
			{"这周六去爬山", "上周六去爬山了", "上周六", "2025-12-13", "2025-12-14", false},
			{"下个周六一起去吧", "上个周六一起去了", "上个周六", "2025-12-13", "2025-12-14", false},
			{"下个月", "上个月", "上个月", "2025-11-01", "2025-12-01", true},
			{"明年", "去年", "去年", "2024-01-01", "2025-01-01", true},
		})
	})
	// この names the nearest weekend or weekday, 这个 the current week's.
	t.Run("Monday", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-15 09:00", []parseCase{
			{"この土日は出かけてた", "この土日", "2025-12-13", "2025-12-15", false},
			{"この週末", "この週末", "2025-12-13", "2025-12-15", true},
			{"この土曜", "この土曜", "2025-12-13", "2025-12-14", true},
			{"この月曜", "この月曜", "2025-12-15", "2025-12-16", true},
			{"この木曜", "", "", "", false},
			{"这个周末", "", "", "", false},
			{"上个周末", "上个周末", "2025-12-13", "2025-12-15", true},
		})
	})
	t.Run("Wednesday", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-17 09:00", []parseCase{
			{"この週末", "", "", "", false},
			{"この土曜", "", "", "", false},
			{"この日曜", "この日曜", "2025-12-14", "2025-12-15", true},
		})
	})
	t.Run("Sunday", func(t *testing.T) {
		checkParse(t, tokyo, sunday, []parseCase{
			{"この週末", "この週末", "2025-12-20", "2025-12-22", true},
			{"这个周末", "这个周末", "2025-12-20", "2025-12-22", true},
			{"この土曜", "この土曜", "2025-12-20", "2025-12-21", true},
			{"上个周末", "上个周末", "2025-12-13", "2025-12-15", true},
			{"今度の週末", "", "", "", false},
			{"次の週末", "", "", "", false},
			{"下个周末", "", "", "", false},
			{"这个周期", "", "", "", false},
		})
	})
}

// TestParsePlans covers sentences about a plan: a day, a weekend, a month or
// the current period they name is not when a conversation happened, and
// names no window; the same words reporting the past keep theirs.
func TestParsePlans(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	t.Run("ja", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"週末、富士山に登ろうと思う", "週末、富士山に登った", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は山登りに行く予定", "週末は山登りに行った", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は何か予定ある？", "週末は何かあった？", "週末", "2025-12-13", "2025-12-15", true},
			{"土曜に映画を見に行くつもり", "土曜に映画を見た", "土曜", "2025-12-13", "2025-12-14", false},
			{"日曜は友達と会う", "日曜は友達と会った", "日曜", "2025-12-14", "2025-12-15", false},
			{"週末何する？", "週末何してた？", "週末", "2025-12-13", "2025-12-15", true},
			{"週末は山に行こう！", "週末は山に行ったよ！", "週末", "2025-12-13", "2025-12-15", false},
			{"週末に行きましょう", "週末に行きました", "週末", "2025-12-13", "2025-12-15", false},
			{"土曜日はゆっくりしたいな", "土曜日はゆっくりしたかった", "土曜日", "2025-12-13", "2025-12-14", false},
			{"週末に見てみたい", "週末に見てみた", "週末", "2025-12-13", "2025-12-15", false},
			{"週末が楽しみ", "週末が楽しかった", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は山登りに行く予定なんだけど、一緒にどう？", "週末は山登りに行ったんだけど、楽しかった", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は山に行くと思います", "週末は山に行ったと思います", "週末", "2025-12-13", "2025-12-15", false},
			{"お盆は実家に帰ります", "お盆は実家に帰りました", "お盆", "2025-08-13", "2025-08-17", false},
			{"5月に引っ越す予定です", "5月に引っ越しました", "5月", "2025-05-01", "2025-06-01", false},
			{"今日は映画を見に行く予定", "今日は映画を見に行った", "今日", "2025-12-16", "2025-12-17", false},
			{"今年は旅行しようと思ってる", "今年は旅行した", "今年", "2025-01-01", "2025-12-17", false},
			// A plan word next to the expression: the plan was made before its
			// time, whatever the tense of the question.
			{"週末の予定、何だったっけ？", "週末の話、何だったっけ？", "週末", "2025-12-13", "2025-12-15", true},
			{"土曜の予定は？", "土曜の話は？", "土曜", "2025-12-13", "2025-12-14", true},
		})
	})
	t.Run("ja-past", func(t *testing.T) {
		checkParse(t, tokyo, tuesday, []parseCase{
			{"週末は山登りに行く予定だった", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は行く予定でしたが、雨でした", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は予定がなくて暇だった", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は行こうと思ったけどやめた", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は遊んだ", "週末", "2025-12-13", "2025-12-15", false},
			{"週末はありがとう", "週末", "2025-12-13", "2025-12-15", false},
			{"週末はおめでとう", "週末", "2025-12-13", "2025-12-15", false},
			{"週末のこと覚えてる？", "週末", "2025-12-13", "2025-12-15", true},
			{"週末のこと覚えてます？", "週末", "2025-12-13", "2025-12-15", true},
			{"週末の写真見る？", "週末", "2025-12-13", "2025-12-15", false},
			{"お盆だったりします？", "お盆", "2025-08-13", "2025-08-17", false},
			{"今日は疲れてます", "今日", "2025-12-16", "2025-12-17", false},
			{"今年は蛙が少ない気がします", "今年", "2025-01-01", "2025-12-17", false},
			{"週末は雨になるようです", "週末", "2025-12-13", "2025-12-15", false},
			{"週末は山に行ったけど、来週は海に行く予定", "週末", "2025-12-13", "2025-12-15", false},
			{"先週は行ったけど、週末は行く予定", "先週", "2025-12-08", "2025-12-15", false},
			{"週末は山登りに行く予定。先週は海に行った", "先週", "2025-12-08", "2025-12-15", false},
		})
	})
	t.Run("en", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"we will meet on Saturday", "we met on Saturday", "on saturday", "2025-12-13", "2025-12-14", false},
			{"we'll talk on Sunday", "we talked on Sunday", "on sunday", "2025-12-14", "2025-12-15", true},
			{"let's go hiking over the weekend", "we went hiking over the weekend", "over the weekend", "2025-12-13", "2025-12-15", false},
			{"what are you doing on Saturday?", "what were you doing on Saturday?", "on saturday", "2025-12-13", "2025-12-14", false},
			{"are we meeting over the weekend?", "did we meet over the weekend?", "over the weekend", "2025-12-13", "2025-12-15", false},
			{"any plans for the weekend?", "how was the weekend?", "the weekend", "2025-12-13", "2025-12-15", false},
			{"what were our plans for the weekend?", "what did we do over the weekend?", "over the weekend", "2025-12-13", "2025-12-15", true},
			{"I can't wait for the weekend", "I loved the weekend", "the weekend", "2025-12-13", "2025-12-15", false},
			{"see you on Sunday!", "we talked on Sunday!", "on sunday", "2025-12-14", "2025-12-15", true},
			{"I want to visit the museum in May", "I visited the museum in May", "in may", "2025-05-01", "2025-06-01", false},
			{"I'm going to the gym today", "I went to the gym today", "today", "2025-12-16", "2025-12-17", false},
			{"I'm going hiking this weekend", "I went hiking this past weekend", "this past weekend", "2025-12-13", "2025-12-15", false},
		})
	})
	t.Run("en-past", func(t *testing.T) {
		checkParse(t, tokyo, tuesday, []parseCase{
			{"I'll tell you what we did on Saturday", "on saturday", "2025-12-13", "2025-12-14", true},
			{"I'm still thinking about the movie we watched on Saturday", "on saturday", "2025-12-13", "2025-12-14", false},
			{"I'm feeling sick today", "today", "2025-12-16", "2025-12-17", false},
			{"this week has been chaotic with everything going on", "this week", "2025-12-15", "2025-12-17", false},
			{"the weather was amazing on Saturday", "on saturday", "2025-12-13", "2025-12-14", false},
			{"What event is Nate organizing in June 2022?", "in june 2022", "2022-06-01", "2022-07-01", false},
			{"I went out on Saturday but I'll rest on Sunday", "on saturday", "2025-12-13", "2025-12-14", false},
			{"I'll rest on Sunday but I went out on Saturday", "on saturday", "2025-12-13", "2025-12-14", false},
		})
	})
	t.Run("zh", func(t *testing.T) {
		checkPlans(t, tokyo, tuesday, []planCase{
			{"周末打算去爬山", "周末去爬山了", "周末", "2025-12-13", "2025-12-15", false},
			{"我打算周末去爬山", "我周末去爬山了", "周末", "2025-12-13", "2025-12-15", false},
			{"周末一起吃饭吧", "周末一起吃饭了", "周末", "2025-12-13", "2025-12-15", false},
			{"周末要加班", "周末加班了", "周末", "2025-12-13", "2025-12-15", false},
			{"周末你想干什么？", "周末你干了什么？", "周末", "2025-12-13", "2025-12-15", false},
			{"周末的计划是什么来着？", "周末的事是什么来着？", "周末", "2025-12-13", "2025-12-15", false},
			{"周六打算去爬山", "周六去爬山了", "周六", "2025-12-13", "2025-12-14", false},
			{"周六见！", "周六见到他了", "周六", "2025-12-13", "2025-12-14", false},
			{"今天想吃火锅", "今天吃了火锅", "今天", "2025-12-16", "2025-12-17", false},
		})
	})
	t.Run("zh-past", func(t *testing.T) {
		checkParse(t, tokyo, tuesday, []parseCase{
			{"我想起周末的事", "周末", "2025-12-13", "2025-12-15", false},
			{"周末很重要", "周末", "2025-12-13", "2025-12-15", false},
			{"周末去爬山了吧", "周末", "2025-12-13", "2025-12-15", false},
			{"上周末我们去爬山了", "上周末", "2025-12-13", "2025-12-15", false},
			{"上周末打算去爬山", "上周末", "2025-12-13", "2025-12-15", false},
		})
	})
	// On Saturday the current weekend has begun: a plan for it names no
	// window, a report of it names the part gone.
	t.Run("Saturday", func(t *testing.T) {
		checkPlans(t, tokyo, "2025-12-20 10:00", []planCase{
			{"I'm going hiking this weekend", "what did we talk about this weekend?", "this weekend", "2025-12-20", "2025-12-21", true},
			{"今週末は友達と会う予定", "今週末は友達と会った", "今週末", "2025-12-20", "2025-12-21", false},
			{"这个周末打算去爬山", "这个周末去爬山了", "这个周末", "2025-12-20", "2025-12-21", false},
		})
	})
}

func TestParseOnly(t *testing.T) {
	loc := mustLoad(t, "Asia/Tokyo")
	now := at(t, loc, sunday)
	tests := []struct {
		text string
		want bool
	}{
		{"先週何話したっけ", true},
		{"先週なに話したっけ？", true},
		{"昨日の話の続き?", true},
		{"先月どんな話した？", true},
		{"昨日何があった？", true},
		{"去年の夏の話覚えてる？", true},
		{"ねえ、昨日私たち何を話してたっけ😊", true},
		{"what did we talk about yesterday?", true},
		{"What's the stuff we talked about last week?", true},
		{"上周我们聊了什么", true},
		{"昨天我们说了什么？", true},
		{"先週", true},
		{"先週食べたラーメン美味しかった", false},
		{"昨日の映画の話覚えてる？", false},
		{"昨日のラーメンの話", false},
		{"what did we eat yesterday?", false},
		{"yesterday my cat was sick", false},
		{"上周我们去了哪里", false},
	}
	for _, tt := range tests {
		w, ok := Parse(tt.text, now, loc)
		if !ok {
			t.Errorf("Parse(%q) found no window", tt.text)
			continue
		}
		if w.Only != tt.want {
			t.Errorf("Parse(%q).Only = %v (expr %q), want %v", tt.text, w.Only, w.Expr, tt.want)
		}
	}
}

// TestParseNow covers the parts that depend on the day of the week or the
// month of now.
func TestParseNow(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	t.Run("Wednesday", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-17 09:00", []parseCase{
			{"週末", "週末", "2025-12-13", "2025-12-15", true},
			{"over the weekend", "over the weekend", "2025-12-13", "2025-12-15", true},
			{"先週末", "先週末", "2025-12-13", "2025-12-15", true},
			{"last weekend", "last weekend", "2025-12-13", "2025-12-15", true},
			{"月曜", "月曜", "2025-12-15", "2025-12-16", true},
			{"last wednesday", "last wednesday", "2025-12-10", "2025-12-11", true},
			{"日曜", "日曜", "2025-12-14", "2025-12-15", true},
			{"今週", "今週", "2025-12-15", "2025-12-18", true},
			{"今週の月曜", "今週の月曜", "2025-12-15", "2025-12-16", true},
			{"今週末", "", "", "", false},
			{"this weekend", "", "", "", false},
			{"今週の金曜", "", "", "", false},
		})
	})
	t.Run("Saturday", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-20 10:00", []parseCase{
			{"週末", "週末", "2025-12-20", "2025-12-21", true},
			{"先週末", "先週末", "2025-12-13", "2025-12-15", true},
		})
	})
	t.Run("March", func(t *testing.T) {
		checkParse(t, tokyo, "2025-03-10 12:00", []parseCase{
			{"5月に", "5月", "2024-05-01", "2024-06-01", true},
			{"3月に", "3月", "2025-03-01", "2025-03-11", true},
			{"in may", "in may", "2024-05-01", "2024-06-01", true},
			{"last march", "last march", "2024-03-01", "2024-04-01", true},
			{"去年の冬", "去年の冬", "2024-12-01", "2025-03-01", true},
			{"last winter", "last winter", "2024-12-01", "2025-03-01", true},
			{"年末", "年末", "2024-12-20", "2025-01-01", true},
			{"正月", "正月", "2025-01-01", "2025-01-04", true},
		})
	})
	t.Run("January", func(t *testing.T) {
		checkParse(t, tokyo, "2026-01-15 12:00", []parseCase{
			{"去年", "去年", "2025-01-01", "2026-01-01", true},
			{"先月", "先月", "2025-12-01", "2026-01-01", true},
			{"この冬", "この冬", "2025-12-01", "2026-01-16", true},
			{"今年の冬", "今年の冬", "2025-12-01", "2026-01-16", true},
			{"去年の冬", "去年の冬", "2024-12-01", "2025-03-01", true},
			{"last winter", "last winter", "2024-12-01", "2025-03-01", true},
			{"年末", "年末", "2025-12-20", "2026-01-01", true},
			{"12月に", "12月", "2025-12-01", "2026-01-01", true},
			{"先週", "先週", "2026-01-05", "2026-01-12", true},
		})
	})
}

func TestParseLocation(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	now := time.Date(2025, 12, 21, 1, 0, 0, 0, tokyo) // 2025-12-20 16:00 UTC
	w, ok := Parse("昨日", now, tokyo)
	if !ok || !w.From.Equal(time.Date(2025, 12, 20, 0, 0, 0, 0, tokyo)) {
		t.Errorf("Parse(昨日) in Tokyo = %v %v, want 2025-12-20 JST", w.From, ok)
	}
	w, ok = Parse("昨日", now, nil)
	if !ok || !w.From.Equal(time.Date(2025, 12, 19, 0, 0, 0, 0, time.UTC)) || w.From.Location() != time.UTC {
		t.Errorf("Parse(昨日) with nil loc = %v %v, want 2025-12-19 UTC", w.From, ok)
	}

	// DST ended in New York on 2025-11-02: that day lasted 25 hours.
	ny := mustLoad(t, "America/New_York")
	w, ok = Parse("yesterday", time.Date(2025, 11, 3, 12, 0, 0, 0, ny), ny)
	if !ok || !w.From.Equal(time.Date(2025, 11, 2, 0, 0, 0, 0, ny)) || w.To.Sub(w.From) != 25*time.Hour {
		t.Errorf("Parse(yesterday) across DST = [%v, %v) %v, want the 25-hour 2025-11-02", w.From, w.To, ok)
	}
}

// TestParseInvariants checks From < To <= start of tomorrow for every
// expression above at every hour of a fortnight.
func TestParseInvariants(t *testing.T) {
	loc := mustLoad(t, "America/New_York")
	texts := []string{
		"今日", "今朝", "昨夜", "数日前", "先週", "今週", "今週末", "週末", "先週末", "今月", "今年",
		"この冬", "今年の夏", "年末", "正月", "クリスマス", "5月に", "12月31日", "月曜", "今週の日曜の夜",
		"this morning", "this evening", "last night", "this weekend", "over the weekend",
		"last winter", "on friday", "earlier this week", "去年の今頃", "上周末",
		"この週末", "この土曜", "这个周末", "上个周末", "on friday this week", "这周六", "周日晚上",
	}
	start := time.Date(2025, 10, 25, 0, 30, 0, 0, loc)
	for h := range 24 * 14 {
		now := start.Add(time.Duration(h) * time.Hour)
		ny, nm, nd := now.Date()
		tomorrow := time.Date(ny, nm, nd+1, 0, 0, 0, 0, loc)
		for _, text := range texts {
			w, ok := Parse(text, now, loc)
			if ok && (!w.From.Before(w.To) || w.To.After(tomorrow)) {
				t.Errorf("Parse(%q) at %v = [%v, %v)", text, now, w.From, w.To)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", ""},
		{"先週なに話したっけ", "先週なに話したっけ"},
		{"Last Week", "last week"},
		{"ＬＡＳＴ　ＷＥＥＫ！", "last week!"},
		{"３ヶ月前？", "3ヶ月前?"},
		{"ｹﾞﾝｷ？", "ゲンキ?"},  // half-width katakana: the norm path
		{"①日前", "1日前"},     // circled digit: the norm path
		{"Ä ３日前", "ä 3日前"}, // non-ASCII upper case: the norm path
		{"ガ\u3099", "ガ\u3099"},
		{"ありがとう〜😊👍🏻\u200d\ufe0f・", "ありがとう〜😊👍🏻\u200d\ufe0f・"},
		{"…🄰", "...a"}, // compatibility characters: the norm path
		{"\xff先週", "\ufffd先週"},
	}
	for _, tt := range tests {
		got := Normalize(tt.text)
		if got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if ref := strings.ToLower(norm.NFKC.String(tt.text)); got != ref {
			t.Errorf("Normalize(%q) = %q, NFKC+lower gives %q", tt.text, got, ref)
		}
	}
	if s := "先週の話"; Normalize(s) != s {
		t.Errorf("Normalize changed %q", s)
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"unchanged", "先週なに話したっけ、覚えてる"},
		{"fullwidth", "先週なに話したっけ？"},
		{"norm", "ｹﾞﾝｷ？先週なに話したっけ"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Normalize(bc.text)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	loc := mustLoad(b, "Asia/Tokyo")
	now := at(b, loc, sunday)
	for _, bc := range []struct{ name, text string }{
		{"ja-hit", "先週なに話したっけ？"},
		{"ja-miss", "おはよう！朝はコーヒーを飲みながら、猫と一緒にのんびりしてたよ。"},
		{"en-hit", "what did we talk about last weekend?"},
		{"en-miss", "I finally finished the book you recommended, it was great."},
		{"zh-hit", "上周我们聊了什么"},
		{"ja-plan", "週末は山登りに行く予定なんだけど、一緒にどう？"},
		{"en-plan", "we're going hiking over the weekend, want to come?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(bc.text, now, loc)
			}
		})
	}
}

func TestParseKorean(t *testing.T) {
	checkParse(t, mustLoad(t, "Asia/Seoul"), sunday, []parseCase{
		{"어제", "어제", "2025-12-20", "2025-12-21", true},
		{"어제 무슨 얘기 했지?", "어제", "2025-12-20", "2025-12-21", true},
		{"어제 병원 다녀온 얘기 기억나?", "어제", "2025-12-20", "2025-12-21", false},
		{"그저께", "그저께", "2025-12-19", "2025-12-20", true},
		{"오늘", "오늘", "2025-12-21", "2025-12-22", true},
		{"지난주", "지난주", "2025-12-08", "2025-12-15", true},
		{"지난 주에 뭐 했지", "지난 주", "2025-12-08", "2025-12-15", true},
		{"지난 주말", "지난 주말", "2025-12-13", "2025-12-15", true},
		{"지난주 토요일", "지난주 토요일", "2025-12-13", "2025-12-14", true},
		{"이번 주", "이번 주", "2025-12-15", "2025-12-22", true},
		{"지난달", "지난달", "2025-11-01", "2025-12-01", true},
		{"작년 여름", "작년 여름", "2024-06-01", "2024-09-01", true},
		{"작년 여름에 간 여행", "작년 여름", "2024-06-01", "2024-09-01", false},
		{"올해", "올해", "2025-01-01", "2025-12-22", true},
		{"어젯밤", "어젯밤", "2025-12-20 18:00", "2025-12-21 06:00", true},
		{"어제 저녁", "어제 저녁", "2025-12-20 15:00", "2025-12-20 19:00", true},
		{"아까워", "", "", "", false},
		{"나비 사료", "", "", "", false},
	})
}

// TestParseLang: the hint reads a clause of Han alone (lang.Detect): with a
// Japanese one, by Japanese plan words (週末予定確認, checking the weekend's
// plans, is a plan; 週末要確認, the weekend needs checking, is not), without
// one or with any other, by Chinese ones (要 is a plan); a clause with kana,
// and English, read the same whatever the hint.
func TestParseLang(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	n := at(t, tokyo, tuesday)
	weekend := [2]string{"2025-12-13", "2025-12-15"}
	for _, tc := range []struct {
		text string
		hint lang.Language
		expr string // "" when no window is expected
		span [2]string
	}{
		{"週末予定確認", lang.Japanese, "", weekend},
		{"週末予定確認", lang.Other, "週末", weekend},
		{"週末予定確認", lang.Chinese, "週末", weekend},
		{"週末予定確認", lang.Korean, "週末", weekend},
		{"今年旅行計画", lang.Japanese, "", weekend},
		{"今年旅行計画", lang.Other, "今年", [2]string{"2025-01-01", "2025-12-17"}},
		{"週末要確認", lang.Japanese, "週末", weekend},
		{"週末要確認", lang.Other, "", weekend},
		{"週末要確認", lang.Chinese, "", weekend},
		{"周末打算去爬山", lang.Chinese, "", weekend},
		{"周末去爬山了", lang.Japanese, "周末", weekend},
		{"週末は山登りに行く予定", lang.Chinese, "", weekend},
		{"週末は山登りに行った", lang.Chinese, "週末", weekend},
		{"週末は山登りに行った", lang.Japanese, "週末", weekend},
		{"we will meet over the weekend", lang.Japanese, "", weekend},
		{"we met over the weekend", lang.Chinese, "over the weekend", weekend},
	} {
		w, ok := ParseLang(tc.text, n, tokyo, tc.hint)
		switch {
		case tc.expr == "" && ok:
			t.Errorf("ParseLang(%q, %q) = %q, want no window", tc.text, tc.hint, w.Expr)
		case tc.expr != "" && (!ok || w.Expr != tc.expr || !w.From.Equal(at(t, tokyo, tc.span[0])) || !w.To.Equal(at(t, tokyo, tc.span[1]))):
			t.Errorf("ParseLang(%q, %q) = %q [%v, %v) %v, want %q [%s, %s)", tc.text, tc.hint, w.Expr, w.From, w.To, ok, tc.expr, tc.span[0], tc.span[1])
		}
		if tc.hint == lang.Other {
			if p, pok := Parse(tc.text, n, tokyo); p != w || pok != ok {
				t.Errorf("Parse(%q) = %+v %v, ParseLang with no hint %+v %v", tc.text, p, pok, w, ok)
			}
		}
	}
}
