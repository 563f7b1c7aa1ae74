package timeexpr

import (
	"testing"
	"time"

	"github.com/omoide/omoide/lang"
)

// Now is Thursday 2025-12-25 12:00: Christmas Day itself.
const christmasDay = "2025-12-25 12:00"

// Now is Saturday 2026-01-10 12:00: Christmas and new year's just gone.
const january = "2026-01-10 12:00"

// Now is Tuesday 2026-02-10 12:00: the lunar new year of 2026 (February 17)
// has not come yet.
const beforeLunarNewYear = "2026-02-10 12:00"

func TestParseEnglishEvents(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	checkParse(t, tokyo, sunday, []parseCase{
		{"last Christmas", "last christmas", "2024-12-24", "2024-12-26", true},
		{"what did we talk about at christmas?", "at christmas", "2024-12-24", "2024-12-26", true},
		{"Christmas last year", "christmas last year", "2024-12-24", "2024-12-26", true},
		{"at Christmas last year we went skiing", "at christmas last year", "2024-12-24", "2024-12-26", false},
		{"last year's christmas", "last year's christmas", "2024-12-24", "2024-12-26", true},
		{"christmas 2024", "christmas 2024", "2024-12-24", "2024-12-26", true},
		{"christmas of 2023", "christmas of 2023", "2023-12-24", "2023-12-26", true},
		{"the christmas before last", "the christmas before last", "2023-12-24", "2023-12-26", true},
		{"xmas", "xmas", "2024-12-24", "2024-12-26", true},
		{"christmas eve", "christmas eve", "2024-12-24", "2024-12-25", true},
		{"on christmas day", "on christmas day", "2024-12-25", "2024-12-26", true},
		{"christmas eve last year", "christmas eve last year", "2024-12-24", "2024-12-25", true},
		{"new year's", "new year's", "2024-12-31", "2025-01-02", true},
		{"new years", "new years", "2024-12-31", "2025-01-02", true},
		{"New Year’s Eve", "new year’s eve", "2024-12-31", "2025-01-01", true},
		{"new years eve", "new years eve", "2024-12-31", "2025-01-01", true},
		{"NYE", "nye", "2024-12-31", "2025-01-01", true},
		{"new year's day", "new year's day", "2025-01-01", "2025-01-02", true},
		{"over new year", "over new year", "2024-12-31", "2025-01-02", true},
		{"thanksgiving", "thanksgiving", "2025-11-27", "2025-12-01", true},
		{"thanksgiving day", "thanksgiving day", "2025-11-27", "2025-11-28", true},
		{"thanksgiving last year", "thanksgiving last year", "2024-11-28", "2024-12-02", true},
		{"what did we eat on thanksgiving?", "on thanksgiving", "2025-11-27", "2025-12-01", false},
		{"halloween", "halloween", "2025-10-31", "2025-11-01", true},
		{"last halloween", "last halloween", "2025-10-31", "2025-11-01", true},
		{"valentine's day", "valentine's day", "2025-02-14", "2025-02-15", true},
		{"Valentine’s Day", "valentine’s day", "2025-02-14", "2025-02-15", true},
		{"valentines day", "valentines day", "2025-02-14", "2025-02-15", true},
		{"on valentines", "on valentines", "2025-02-14", "2025-02-15", true},
		{"the 4th of july", "the 4th of july", "2025-07-04", "2025-07-05", true},
		{"fourth of july", "fourth of july", "2025-07-04", "2025-07-05", true},
		{"on july 4th", "on july 4th", "2025-07-04", "2025-07-05", true},
		{"easter", "easter", "2025-04-18", "2025-04-22", true},
		{"easter sunday", "easter sunday", "2025-04-20", "2025-04-21", true},
		{"over easter 2024", "over easter 2024", "2024-03-29", "2024-04-02", true},
		{"labor day weekend", "labor day weekend", "2025-08-30", "2025-09-02", true},
		{"memorial day", "memorial day", "2025-05-24", "2025-05-27", true},
		{"over the holidays", "over the holidays", "2025-12-20", "2025-12-22", true},
		{"during the christmas break", "during the christmas break", "2025-12-20", "2025-12-22", true},
		{"last holiday season", "last holiday season", "2024-12-20", "2025-01-04", true},

		// Things and greetings named after an event are no time.
		{"christmas tree", "", "", "", false},
		{"we decorated the christmas tree", "", "", "", false},
		{"I'm new here", "", "", "", false},
		{"happy new year", "", "", "", false},
		{"Merry Christmas!", "", "", "", false},
		{"happy halloween", "", "", "", false},
		{"easter egg hunt planning", "", "", "", false},
		{"the game has an easter egg", "", "", "", false},
		{"new year's resolutions", "", "", "", false},
		{"in the new year", "", "", "", false},
		{"a new year", "", "", "", false},
		{"my valentine", "", "", "", false},
		{"happy holidays", "", "", "", false},
		{"Bill Nye explains it", "", "", "", false},
		{"this christmas", "", "", "", false}, // ahead
		{"christmas this year", "", "", "", false},
		{"christmas 2026", "", "", "", false},
		// A recurring time in a plan.
		{"what are you doing for christmas?", "", "", "", false},
		{"we're going home for the holidays", "", "", "", false},
		{"we went home for the holidays", "for the holidays", "2025-12-20", "2025-12-22", false},
	})
}

// TestParseEnglishEventsNow covers the year boundary: "last" is the most
// recent occurrence that has ended, a bare name the most recent that began.
func TestParseEnglishEventsNow(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	t.Run("ChristmasDay", func(t *testing.T) {
		checkParse(t, tokyo, christmasDay, []parseCase{
			{"christmas", "christmas", "2025-12-24", "2025-12-26", true},
			{"last christmas", "last christmas", "2024-12-24", "2024-12-26", true},
			{"this past christmas", "this past christmas", "2024-12-24", "2024-12-26", true},
			{"this christmas", "this christmas", "2025-12-24", "2025-12-26", true},
			{"christmas eve", "christmas eve", "2025-12-24", "2025-12-25", true},
			{"christmas day", "christmas day", "2025-12-25", "2025-12-26", true},
			{"new year's eve", "new year's eve", "2024-12-31", "2025-01-01", true},
			{"merry christmas", "", "", "", false},
			{"what are we doing for christmas?", "", "", "", false},
		})
	})
	t.Run("BoxingDay", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-26 09:00", []parseCase{
			{"last christmas", "last christmas", "2025-12-24", "2025-12-26", true},
		})
	})
	t.Run("NewYearsEve", func(t *testing.T) {
		checkParse(t, tokyo, "2025-12-31 21:00", []parseCase{
			{"new year's", "new year's", "2025-12-31", "2026-01-01", true},
			{"last new year's", "last new year's", "2024-12-31", "2025-01-02", true},
			{"nye", "nye", "2025-12-31", "2026-01-01", true},
		})
	})
	t.Run("January", func(t *testing.T) {
		checkParse(t, tokyo, january, []parseCase{
			{"last Christmas", "last christmas", "2025-12-24", "2025-12-26", true},
			{"at christmas", "at christmas", "2025-12-24", "2025-12-26", true},
			{"christmas last year", "christmas last year", "2025-12-24", "2025-12-26", true},
			{"the christmas before last", "the christmas before last", "2024-12-24", "2024-12-26", true},
			{"new year's", "new year's", "2025-12-31", "2026-01-02", true},
			{"last new year's eve", "last new year's eve", "2025-12-31", "2026-01-01", true},
			{"over the holidays", "over the holidays", "2025-12-20", "2026-01-04", true},
			{"last winter", "last winter", "2024-12-01", "2025-03-01", true},
			{"over the winter", "over the winter", "2025-12-01", "2026-01-11", true},
			{"this christmas", "", "", "", false},
		})
	})
	t.Run("Easter", func(t *testing.T) {
		checkParse(t, tokyo, "2025-04-19 12:00", []parseCase{
			{"easter", "easter", "2025-04-18", "2025-04-20", true}, // Good Friday, so far
			{"last easter", "last easter", "2024-03-29", "2024-04-02", true},
		})
	})
}

func TestParseEnglishSeasons(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	checkParse(t, tokyo, sunday, []parseCase{
		{"last summer", "last summer", "2025-06-01", "2025-09-01", true},
		{"this past summer", "this past summer", "2025-06-01", "2025-09-01", true},
		{"summer 2025", "summer 2025", "2025-06-01", "2025-09-01", true},
		{"Summer of 2024", "summer of 2024", "2024-06-01", "2024-09-01", true},
		{"in the summer of 2024", "in the summer of 2024", "2024-06-01", "2024-09-01", true},
		{"during summer 2023", "during summer 2023", "2023-06-01", "2023-09-01", true},
		{"the summer before last", "the summer before last", "2024-06-01", "2024-09-01", true},
		{"the winter before last", "the winter before last", "2023-12-01", "2024-03-01", true},
		{"two summers ago", "two summers ago", "2024-06-01", "2024-09-01", true},
		{"3 winters ago", "3 winters ago", "2022-12-01", "2023-03-01", true},
		{"a summer ago", "a summer ago", "2025-06-01", "2025-09-01", true},
		{"last year's summer", "last year's summer", "2024-06-01", "2024-09-01", true},
		{"summer of last year", "summer of last year", "2024-06-01", "2024-09-01", true},
		{"summer last year", "summer last year", "2024-06-01", "2024-09-01", true},
		{"the summer last year", "the summer last year", "2024-06-01", "2024-09-01", true},
		{"winter of 2024", "winter of 2024", "2024-12-01", "2025-03-01", true},
		{"fall 2024", "fall 2024", "2024-09-01", "2024-12-01", true},
		{"over the summer", "over the summer", "2025-06-01", "2025-09-01", true},
		{"over the winter", "over the winter", "2025-12-01", "2025-12-22", true},
		{"this winter", "this winter", "2025-12-01", "2025-12-22", true},
		{"the year before last", "the year before last", "2023-01-01", "2024-01-01", true},
		{"earlier this year", "earlier this year", "2025-01-01", "2025-12-22", true},
		{"I had a fall last year", "last year", "2024-01-01", "2025-01-01", false}, // fall only before a year in digits
		{"summer of 2026", "", "", "", false},
		{"summer", "", "", "", false},
		{"in the summer I swim", "", "", "", false},
		{"spring rolls", "", "", "", false},
	})
	t.Run("April", func(t *testing.T) {
		checkParse(t, tokyo, "2025-04-10 12:00", []parseCase{
			{"over the summer", "over the summer", "2024-06-01", "2024-09-01", true},
			{"this past winter", "this past winter", "2024-12-01", "2025-03-01", true},
			{"summer this year", "", "", "", false}, // ahead
		})
	})
}

func TestParseChineseEvents(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	checkParse(t, tokyo, sunday, []parseCase{
		{"春节", "春节", "2025-01-28", "2025-02-04", true},
		{"春節", "春節", "2025-01-28", "2025-02-04", true},
		{"过年的时候去了哪里", "过年", "2025-01-28", "2025-02-04", false},
		{"去年春节", "去年春节", "2024-02-09", "2024-02-16", true},
		{"去年的春节我们聊了什么", "去年的春节", "2024-02-09", "2024-02-16", true},
		{"除夕", "除夕", "2025-01-28", "2025-01-29", true},
		{"除夕夜", "除夕夜", "2025-01-28", "2025-01-29", true},
		{"大年三十", "大年三十", "2025-01-28", "2025-01-29", true},
		{"元宵节", "元宵节", "2025-02-12", "2025-02-13", true},
		{"中秋节", "中秋节", "2025-10-06", "2025-10-07", true},
		{"中秋", "中秋", "2025-10-06", "2025-10-07", true},
		{"去年中秋", "去年中秋", "2024-09-17", "2024-09-18", true},
		{"国庆", "国庆", "2025-10-01", "2025-10-08", true},
		{"国庆节", "国庆节", "2025-10-01", "2025-10-08", true},
		{"十一假期去哪了", "十一", "2025-10-01", "2025-10-08", false},
		{"十一的时候", "十一", "2025-10-01", "2025-10-08", false},
		{"去年十一长假", "去年十一", "2024-10-01", "2024-10-08", false},
		{"元旦", "元旦", "2025-01-01", "2025-01-02", true},
		{"五一", "五一", "2025-05-01", "2025-05-06", true},
		{"五一劳动节", "五一劳动节", "2025-05-01", "2025-05-06", true},
		{"劳动节", "劳动节", "2025-05-01", "2025-05-06", true},
		{"清明", "清明", "2025-04-04", "2025-04-07", true},
		{"清明节", "清明节", "2025-04-04", "2025-04-07", true},
		{"端午", "端午", "2025-05-31", "2025-06-01", true},
		{"端午节", "端午节", "2025-05-31", "2025-06-01", true},
		{"七夕", "七夕", "2025-08-29", "2025-08-30", true},
		{"圣诞", "圣诞", "2024-12-24", "2024-12-26", true},
		{"圣诞节", "圣诞节", "2024-12-24", "2024-12-26", true},
		{"平安夜", "平安夜", "2024-12-24", "2024-12-25", true},
		{"情人节", "情人节", "2025-02-14", "2025-02-15", true},
		{"万圣节", "万圣节", "2025-10-31", "2025-11-01", true},
		{"前年", "前年", "2023-01-01", "2024-01-01", true},
		{"大前年", "大前年", "2022-01-01", "2023-01-01", true},
		{"去年夏天", "去年夏天", "2024-06-01", "2024-09-01", true},
		{"前年夏天", "前年夏天", "2023-06-01", "2023-09-01", true},
		{"去年的夏天", "去年的夏天", "2024-06-01", "2024-09-01", true},

		{"十一个人", "", "", "", false},
		{"十一月", "", "", "", false},
		{"十一点见", "", "", "", false},
		{"二十一假期", "", "", "", false},
		{"十五一个", "", "", "", false},
		{"三五一群", "", "", "", false},
		{"圣诞树", "", "", "", false},
		{"圣诞快乐", "", "", "", false},
		{"春节快乐！", "", "", "", false},
		{"过年好", "", "", "", false},
		{"吃元宵", "", "", "", false},
		{"清明上河图", "", "", "", false},
		{"前年比", "", "", "", false},
		{"前年の売上", "", "", "", false},
		{"春节打算回老家", "", "", "", false}, // a plan
		{"春节回老家了", "春节", "2025-01-28", "2025-02-04", false},
	})
	t.Run("BeforeLunarNewYear", func(t *testing.T) {
		checkParse(t, tokyo, beforeLunarNewYear, []parseCase{
			{"春节", "春节", "2025-01-28", "2025-02-04", true},
			{"去年春节", "去年春节", "2025-01-28", "2025-02-04", true},
			{"除夕", "除夕", "2025-01-28", "2025-01-29", true},
			{"今年春节", "", "", "", false}, // ahead
		})
	})
	t.Run("LunarNewYear", func(t *testing.T) {
		checkParse(t, tokyo, "2026-02-18 12:00", []parseCase{
			{"春节", "春节", "2026-02-16", "2026-02-19", true},
			{"元宵节", "元宵节", "2025-02-12", "2025-02-13", true},
		})
	})
	t.Run("NationalDay", func(t *testing.T) {
		checkParse(t, tokyo, "2025-10-03 12:00", []parseCase{
			{"国庆", "国庆", "2025-10-01", "2025-10-04", true},
			{"中秋", "中秋", "2024-09-17", "2024-09-18", true}, // 2025's is October 6th
		})
	})
	t.Run("OutOfTable", func(t *testing.T) {
		checkParse(t, tokyo, "2041-03-01 12:00", []parseCase{
			{"春节", "", "", "", false},
			{"圣诞", "圣诞", "2040-12-24", "2040-12-26", true},
		})
	})
}

func TestParseKoreanEvents(t *testing.T) {
	seoul := mustLoad(t, "Asia/Seoul")
	checkParse(t, seoul, sunday, []parseCase{
		{"설날", "설날", "2025-01-28", "2025-01-31", true},
		{"설에 뭐 했어?", "설", "2025-01-28", "2025-01-31", true},
		{"설 연휴에 뭐 했지", "설", "2025-01-28", "2025-01-31", false},
		{"설!", "설", "2025-01-28", "2025-01-31", true},
		{"구정", "구정", "2025-01-28", "2025-01-31", true},
		{"추석", "추석", "2025-10-05", "2025-10-08", true},
		{"추석에 무슨 얘기 했지?", "추석", "2025-10-05", "2025-10-08", true},
		{"작년 추석", "작년 추석", "2024-09-16", "2024-09-19", true},
		{"작년추석", "작년추석", "2024-09-16", "2024-09-19", true},
		{"지난 추석", "지난 추석", "2025-10-05", "2025-10-08", true},
		{"이번 추석", "이번 추석", "2025-10-05", "2025-10-08", true},
		{"재작년", "재작년", "2023-01-01", "2024-01-01", true},
		{"작년 여름", "작년 여름", "2024-06-01", "2024-09-01", true},
		{"지난 여름", "지난 여름", "2025-06-01", "2025-09-01", true},
		{"지난 겨울", "지난 겨울", "2024-12-01", "2025-03-01", true},
		{"지난여름", "지난여름", "2025-06-01", "2025-09-01", true},
		{"올해 여름", "올해 여름", "2025-06-01", "2025-09-01", true},
		{"크리스마스", "크리스마스", "2024-12-24", "2024-12-26", true},
		{"지난 크리스마스", "지난 크리스마스", "2024-12-24", "2024-12-26", true},
		{"새해", "새해", "2025-01-01", "2025-01-02", true},
		{"신정", "신정", "2025-01-01", "2025-01-02", true},
		{"어린이날", "어린이날", "2025-05-05", "2025-05-06", true},
		{"연말", "연말", "2025-12-20", "2025-12-22", true},
		{"작년 연말", "작년 연말", "2024-12-20", "2025-01-01", true},
		{"연초", "연초", "2025-01-01", "2025-01-16", true},
		{"할로윈", "할로윈", "2025-10-31", "2025-11-01", true},

		{"설거지", "", "", "", false},
		{"설명해줘", "", "", "", false},
		{"혼자 설 수 있어", "", "", "", false},
		{"소설 읽었어", "", "", "", false},
		{"구정물", "", "", "", false},
		{"압구정에서", "", "", "", false},
		{"연말정산", "", "", "", false},
		{"크리스마스 트리", "", "", "", false},
		{"크리스마스트리", "", "", "", false},
		{"메리 크리스마스", "", "", "", false},
		{"새해 복 많이 받으세요", "", "", "", false},
		{"신정부", "", "", "", false},
		{"지난번", "", "", "", false},
	})
	// The Korean calendar puts the new year of 2027 a day after the Chinese.
	t.Run("2027", func(t *testing.T) {
		checkParse(t, seoul, "2027-03-01 12:00", []parseCase{
			{"설날", "설날", "2027-02-06", "2027-02-09", true},
			{"春节", "春节", "2027-02-05", "2027-02-12", true},
		})
	})
}

func TestParseJapaneseEvents(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	checkParse(t, tokyo, sunday, []parseCase{
		{"おととしの夏", "おととしの夏", "2023-06-01", "2023-09-01", true},
		{"一昨年の冬", "一昨年の冬", "2023-12-01", "2024-03-01", true},
		{"去年の夏休み", "去年の夏休み", "2024-07-20", "2024-09-01", true},
		{"今年の夏休み", "今年の夏休み", "2025-07-20", "2025-09-01", true},
		{"夏休み", "夏休み", "2025-07-20", "2025-09-01", true},
		{"冬休み", "冬休み", "2024-12-25", "2025-01-08", true}, // this year's begins on the 25th
		{"春休み", "春休み", "2025-03-25", "2025-04-08", true},
		{"七夕に", "七夕", "2025-07-07", "2025-07-08", true},
		{"去年の七夕", "去年の七夕", "2024-07-07", "2024-07-08", true},
		{"バレンタイン", "バレンタイン", "2025-02-14", "2025-02-15", true},
		{"バレンタインデー", "バレンタインデー", "2025-02-14", "2025-02-15", true},
		{"去年のバレンタイン", "去年のバレンタイン", "2024-02-14", "2024-02-15", true},
		{"ハロウィン", "ハロウィン", "2025-10-31", "2025-11-01", true},
		{"端午の節句", "端午", "2025-05-05", "2025-05-06", false},
		{"こどもの日", "こどもの日", "2025-05-05", "2025-05-06", true},
		{"年末年始", "年末年始", "2025-12-20", "2025-12-22", true},
		{"去年の年末年始", "去年の年末年始", "2024-12-20", "2025-01-04", true},

		{"誕生日", "", "", "", false},
		{"誕生日いつだっけ", "", "", "", false},
		{"メリークリスマス", "", "", "", false},
		{"夏休みはどこに行く予定？", "", "", "", false},
		{"夏休みはどこに行った？", "夏休み", "2025-07-20", "2025-09-01", false},
	})
	t.Run("January", func(t *testing.T) {
		checkParse(t, tokyo, january, []parseCase{
			{"冬休み", "冬休み", "2025-12-25", "2026-01-08", true},
			{"去年のクリスマス", "去年のクリスマス", "2025-12-24", "2025-12-26", true},
			{"正月", "正月", "2026-01-01", "2026-01-04", true},
		})
	})
}

// TestParseLangEvents: 七夕 and 端午 read by the language of their clause.
func TestParseLangEvents(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	n := at(t, tokyo, sunday)
	for _, tc := range []struct {
		text     string
		hint     lang.Language
		from, to string
	}{
		{"七夕", lang.Other, "2025-08-29", "2025-08-30"},
		{"七夕", lang.Chinese, "2025-08-29", "2025-08-30"},
		{"七夕", lang.Japanese, "2025-07-07", "2025-07-08"},
		{"七夕の話", lang.Chinese, "2025-07-07", "2025-07-08"},
		{"端午", lang.Japanese, "2025-05-05", "2025-05-06"},
		{"端午", lang.Other, "2025-05-31", "2025-06-01"},
	} {
		w, ok := ParseLang(tc.text, n, tokyo, tc.hint)
		if !ok || !w.From.Equal(at(t, tokyo, tc.from)) || !w.To.Equal(at(t, tokyo, tc.to)) {
			t.Errorf("ParseLang(%q, %v) = [%v, %v) %v, want [%s, %s)", tc.text, tc.hint, w.From, w.To, ok, tc.from, tc.to)
		}
	}
}

// TestParseWritten checks Window.Start and Window.End: the expression as
// written, through both paths of Normalize.
func TestParseWritten(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	n := at(t, tokyo, sunday)
	for _, tc := range []struct{ text, expr, written string }{
		{"先週何話したっけ", "先週", "先週"},
		{"ねえ、３日前に話したこと", "3日前", "３日前"},
		{"ＬＡＳＴ　Ｃｈｒｉｓｔｍａｓ was fun", "last christmas", "ＬＡＳＴ　Ｃｈｒｉｓｔｍａｓ"},
		{"We met Last Week", "last week", "Last Week"},
		{"ｹﾞｰﾑの話、３日前", "3日前", "３日前"}, // the norm path
		{"①日前に", "1日前", "①日前"},       // a compatibility digit
		{"Ä Christmas Eve?", "christmas eve", "Christmas Eve"},
		{"\xff去年の夏", "去年の夏", "去年の夏"},
		{"over the weekenǆ", "over the weekend", "over the weekenǆ"}, // ǆ is dž: the span widens
		{"ǅ 3日前", "3日前", "3日前"},
		{"Valentine’s Day, ３日前", "valentine’s day", "Valentine’s Day"},
	} {
		w, ok := Parse(tc.text, n, tokyo)
		if !ok || w.Expr != tc.expr {
			t.Errorf("Parse(%q) = %q %v, want %q", tc.text, w.Expr, ok, tc.expr)
			continue
		}
		if got := tc.text[w.Start:w.End]; got != tc.written {
			t.Errorf("Parse(%q) written [%d, %d) %q, want %q", tc.text, w.Start, w.End, got, tc.written)
		}
	}
}

// TestEventDates checks the computed anchors against known dates and the
// lunar tables against the lengths of lunar months.
func TestEventDates(t *testing.T) {
	easters := []string{
		"2015-04-05", "2016-03-27", "2017-04-16", "2018-04-01", "2019-04-21", "2020-04-12",
		"2021-04-04", "2022-04-17", "2023-04-09", "2024-03-31", "2025-04-20", "2026-04-05",
		"2027-03-28", "2028-04-16", "2029-04-01", "2030-04-21", "2031-04-13", "2032-03-28",
		"2033-04-17", "2034-04-09", "2035-03-25", "2036-04-13", "2037-04-05", "2038-04-25",
		"2039-04-10", "2040-04-01",
	}
	for k, want := range easters {
		m, d := easter(2015 + k)
		if got := time.Date(2015+k, m, d, 0, 0, 0, 0, time.UTC).Format("2006-01-02"); got != want {
			t.Errorf("easter(%d) = %s, want %s", 2015+k, got, want)
		}
	}
	c := newCtx(time.Date(2025, 12, 21, 12, 0, 0, 0, time.UTC), time.UTC)
	for _, tc := range []struct {
		e        event
		y        int
		from, to string
	}{
		{eThanksgiving, 2024, "2024-11-28", "2024-12-02"},
		{eThanksgiving, 2025, "2025-11-27", "2025-12-01"},
		{eThanksgiving, 2026, "2026-11-26", "2026-11-30"},
		{eMemorialDay, 2024, "2024-05-25", "2024-05-28"},
		{eMemorialDay, 2026, "2026-05-23", "2026-05-26"},
		{eLaborDay, 2024, "2024-08-31", "2024-09-03"},
		{eLaborDay, 2026, "2026-09-05", "2026-09-08"},
		{eSpringFestival, 2024, "2024-02-09", "2024-02-16"},
		{eSpringFestival, 2026, "2026-02-16", "2026-02-23"},
		{eLantern, 2026, "2026-03-03", "2026-03-04"},
		{eMidAutumn, 2024, "2024-09-17", "2024-09-18"},
		{eDragonBoat, 2026, "2026-06-19", "2026-06-20"},
		{eSeollal, 2028, "2028-01-26", "2028-01-29"},
		{eChuseok, 2040, "2040-09-20", "2040-09-23"},
		{eNewYear, 2025, "2024-12-31", "2025-01-02"},
		{eWinterBreak, 2025, "2025-12-25", "2026-01-08"},
	} {
		sp := c.eventSpan(tc.e, tc.y)
		if got, want := sp.from.Format("2006-01-02")+" "+sp.to.Format("2006-01-02"), tc.from+" "+tc.to; got != want {
			t.Errorf("eventSpan(%d, %d) = %s, want %s", tc.e, tc.y, got, want)
		}
	}
	if sp := c.eventSpan(eSpringFestival, 2014); !sp.from.IsZero() {
		t.Errorf("eventSpan(春节, 2014) = %v, want none: out of the table", sp)
	}
	if sp := c.eventSpan(eSpringFestival, 2041); !sp.from.IsZero() {
		t.Errorf("eventSpan(春节, 2041) = %v, want none: out of the table", sp)
	}

	// A lunar month has 29 or 30 days, and a year may hold a leap month: each
	// festival lies a whole number of months after the new year, within
	// these bounds in days (the 5th of month 5: 4 or 5 months and 4 days).
	day := func(y int, md monthDay) time.Time {
		return time.Date(y, time.Month(md[0]), int(md[1]), 0, 0, 0, 0, time.UTC)
	}
	after := func(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }
	for k := range lunar[lNewYear] {
		y := lunarFirst + k
		ny := day(y, lunar[lNewYear][k])
		if ny.Before(day(y, monthDay{1, 21})) || ny.After(day(y, monthDay{2, 20})) {
			t.Errorf("lunar new year %d on %v", y, ny)
		}
		if k > 0 {
			if d := after(day(y-1, lunar[lNewYear][k-1]), ny); d != 354 && d != 355 && d != 383 && d != 384 && d != 385 {
				t.Errorf("lunar year %d is %d days", y-1, d)
			}
		}
		for _, f := range []struct {
			table, months, day int
		}{{lDragonBoat, 4, 4}, {lQixi, 6, 6}, {lMidAutumn, 7, 14}} {
			d := after(ny, day(y, lunar[f.table][k]))
			if lo := 29*f.months + f.day; d < lo || d > lo+f.months+30 {
				t.Errorf("table %d of %d: %d days after the new year", f.table, y, d)
			}
		}
		for _, p := range [][2]int{{lNewYear, lKoNewYear}, {lMidAutumn, lKoMidAutumn}} {
			zh, ko := day(y, lunar[p[0]][k]), day(y, lunar[p[1]][k])
			if d := after(zh, ko); d != 0 && d != 1 {
				t.Errorf("Korean table %d of %d is %d days after the Chinese", p[1], y, d)
			}
		}
	}
}
