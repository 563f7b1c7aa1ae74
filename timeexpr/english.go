package timeexpr

import "time"

// English expressions are matched word by word on lower-cased text. Words are
// runs of ASCII letters and digits separated by one or more spaces; a word
// must be followed by a non-alphanumeric byte, so "weekends" is not "weekend".
//
//	today, earlier today, yesterday [morning|afternoon|evening|night],
//	this morning|afternoon|evening|week|month|year|weekend|<season>,
//	last night|week|month|year|weekend|<season>|<month>|<weekday>,
//	this past weekend|<weekday>, earlier this week|month|year,
//	the day before yesterday, the week|month|year before last,
//	[over|on|during] the weekend [after next],
//	on <weekday> [last|this|next week], in|during <month> [<year>],
//	<n> day(s)|week(s)|month(s)|year(s) ago with n a number 1-9999 or
//	one..twelve or a/an, a few|few|several <unit> ago (units 2-6 back),
//	[a] couple [of] <unit> ago (units 1-3 back), half a year ago.
//
// "next ..." and "this coming ..." are not matched: they name no window.

// wordEnd returns the end of the ASCII alphanumeric word starting at i.
func wordEnd(s string, i int) int {
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	return i
}

// nextWord skips the spaces after i (at least one) and returns the word
// there and its end; it returns "" when there is none.
func nextWord(s string, i int) (string, int) {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	if j == i {
		return "", i
	}
	e := wordEnd(s, j)
	return s[j:e], e
}

// matchEnglish matches an English expression at the word starting at i.
func (c *ctx) matchEnglish(s string, i int) match {
	e1 := wordEnd(s, i)
	w1 := s[i:e1]
	w2, e2 := nextWord(s, e1)
	switch w1 {
	case "today":
		return match{end: e1, sp: c.ago(uDay, 0), t: tNow}
	case "yesterday":
		if p, ok := enPart(w2); ok {
			return match{end: e2, sp: c.dayWindow(c.dayOf(1), p)}
		}
		return match{end: e1, sp: c.ago(uDay, 1)}
	case "this":
		if p, ok := enPart(w2); ok {
			return match{end: e2, sp: c.dayWindow(c.dayOf(0), p), t: tNow}
		}
		if w2 == "past" {
			w3, e3 := nextWord(s, e2)
			if w3 == "weekend" {
				return match{end: e3, sp: c.weekend(1)}
			}
			if wd, ok := enWeekday(w3); ok {
				return match{end: e3, sp: c.dayWindow(c.recentWeekday(wd), 0)}
			}
			return match{}
		}
		m := c.enPeriod(w2, e2, 0)
		m.t = tNow
		return m
	case "last":
		if w2 == "night" {
			return match{end: e2, sp: c.dayWindow(c.dayOf(1), pNight)}
		}
		if m, ok := enMonth(w2); ok {
			return match{end: e2, sp: c.month(c.monthYear(m, true), m)}
		}
		if wd, ok := enWeekday(w2); ok {
			return match{end: e2, sp: c.dayWindow(c.recentWeekday(wd), 0)}
		}
		if se, ok := enSeason(w2); ok {
			return match{end: e2, sp: c.lastSeason(se)}
		}
		return c.enPeriod(w2, e2, 1)
	case "earlier":
		if w2 == "today" {
			return match{end: e2, sp: c.ago(uDay, 0)}
		}
		if w2 == "this" {
			w3, e3 := nextWord(s, e2)
			if u, ok := enUnit(w3); ok && u != uDay {
				return match{end: e3, sp: c.ago(u, 0)}
			}
		}
	case "the":
		return c.enThe(s, w2, e2)
	case "over", "on", "during", "in":
		if w2 == "the" && w1 != "in" {
			if w3, e3 := nextWord(s, e2); w3 == "weekend" {
				return c.enWeekend(s, e3)
			}
		}
		if wd, ok := enWeekday(w2); ok && w1 == "on" {
			return c.enOnWeekday(s, e2, wd)
		}
		if m, ok := enMonth(w2); ok && (w1 == "in" || w1 == "during") {
			if w3, e3 := nextWord(s, e2); len(w3) == 4 {
				if y, ok := enNumber(w3); ok && y >= 1000 { // in june 2022: past, or the current month
					sp := c.month(y, m)
					if sp.to.After(c.today) {
						return match{end: e3, sp: sp, t: tNow}
					}
					return match{end: e3, sp: sp}
				}
			}
			return match{end: e2, sp: c.month(c.monthYear(m, false), m), t: tAny}
		}
	case "a", "an", "few", "several", "couple", "half":
		return c.enVague(s, w1, w2, e2)
	default:
		if n, ok := enNumber(w1); ok {
			return c.enAgo(s, w2, e2, n)
		}
	}
	return match{}
}

// enPeriod matches week|month|year|weekend|<season> after this (n = 0) or
// last (n = 1).
func (c *ctx) enPeriod(w string, e, n int) match {
	if u, ok := enUnit(w); ok && u != uDay {
		return match{end: e, sp: c.ago(u, n)}
	}
	if w == "weekend" {
		return match{end: e, sp: c.weekend(n)}
	}
	if se, ok := enSeason(w); ok && n == 0 {
		return match{end: e, sp: c.seasonSpan(se, c.seasonYear(se))}
	}
	return match{}
}

// enThe matches after "the": day before yesterday, week|month|year before
// last, weekend.
func (c *ctx) enThe(s, w2 string, e2 int) match {
	if w2 == "weekend" {
		return c.enWeekend(s, e2)
	}
	u, ok := enUnit(w2)
	if !ok {
		return match{}
	}
	w3, e3 := nextWord(s, e2)
	w4, e4 := nextWord(s, e3)
	switch {
	case w3 != "before":
	case u == uDay && w2 == "day" && w4 == "yesterday":
		return match{end: e4, sp: c.ago(uDay, 2)}
	case u != uDay && w4 == "last":
		return match{end: e4, sp: c.ago(u, 2)}
	}
	return match{}
}

// enWeekend resolves "the weekend" ending at e: the current or the last one,
// but "the weekend after next" is ahead: a match without a window.
func (c *ctx) enWeekend(s string, e int) match {
	if w, e2 := nextWord(s, e); w == "after" {
		if w2, e3 := nextWord(s, e2); w2 == "next" {
			return match{end: e3}
		}
	}
	return match{end: e, sp: c.weekendNow(), t: tAny}
}

// enOnWeekday resolves "on <weekday>" ending at e: the most recent one, or
// the one of the week named after it (on saturday last|this|next week), which
// is ahead for next week: a match without a window.
func (c *ctx) enOnWeekday(s string, e, wd int) match {
	if w, e2 := nextWord(s, e); w == "last" || w == "this" || w == "next" {
		if w2, e3 := nextWord(s, e2); w2 == "week" {
			switch w {
			case "last":
				return match{end: e3, sp: c.dayWindow(c.weekday(1, wd), 0)}
			case "this":
				return match{end: e3, sp: c.dayWindow(c.weekday(0, wd), 0), t: tNow}
			}
			return match{end: e3}
		}
	}
	return match{end: e, sp: c.dayWindow(c.recentWeekday(wd), 0), t: tAny}
}

// enVague matches a few|couple|several|half ... ago, and a/an <unit> ago.
func (c *ctx) enVague(s, w1, w2 string, e2 int) match {
	if w1 == "a" || w1 == "an" {
		switch w2 {
		case "few", "couple":
			w3, e3 := nextWord(s, e2)
			return c.enVague(s, w2, w3, e3)
		}
		return c.enAgo(s, w2, e2, 1)
	}
	if w1 == "half" {
		w3, e3 := nextWord(s, e2)
		w4, e4 := nextWord(s, e3)
		if w2 == "a" && w3 == "year" && w4 == "ago" {
			return match{end: e4, sp: c.ago(uMonth, 6)}
		}
		return match{}
	}
	if w1 == "couple" && w2 == "of" {
		w2, e2 = nextWord(s, e2)
	}
	u, ok := enUnit(w2)
	if !ok {
		return match{}
	}
	w3, e3 := nextWord(s, e2)
	if w3 != "ago" {
		return match{}
	}
	if w1 == "couple" {
		return match{end: e3, sp: c.agoRange(u, 3, 1)}
	}
	return match{end: e3, sp: c.agoRange(u, 6, 2)}
}

// enAgo matches <unit> ago after the count n.
func (c *ctx) enAgo(s, w2 string, e2, n int) match {
	u, ok := enUnit(w2)
	if !ok {
		return match{}
	}
	if w3, e3 := nextWord(s, e2); w3 == "ago" {
		return match{end: e3, sp: c.ago(u, n)}
	}
	return match{}
}

// enNumber parses 1 to 4 digits or one..twelve; zero is not a count.
func enNumber(w string) (int, bool) {
	switch w {
	case "one":
		return 1, true
	case "two":
		return 2, true
	case "three":
		return 3, true
	case "four":
		return 4, true
	case "five":
		return 5, true
	case "six":
		return 6, true
	case "seven":
		return 7, true
	case "eight":
		return 8, true
	case "nine":
		return 9, true
	case "ten":
		return 10, true
	case "eleven":
		return 11, true
	case "twelve":
		return 12, true
	}
	if len(w) == 0 || len(w) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return 0, false
		}
		n = n*10 + int(w[i]-'0')
	}
	return n, n > 0
}

// enUnit parses day(s), week(s), month(s), year(s).
func enUnit(w string) (unit, bool) {
	switch w {
	case "day", "days":
		return uDay, true
	case "week", "weeks":
		return uWeek, true
	case "month", "months":
		return uMonth, true
	case "year", "years":
		return uYear, true
	}
	return 0, false
}

// enPart parses morning, afternoon, evening, night.
func enPart(w string) (part, bool) {
	switch w {
	case "morning":
		return pMorning, true
	case "afternoon":
		return pAfternoon, true
	case "evening", "night":
		return pNight, true
	}
	return 0, false
}

// enSeason parses spring, summer, fall, autumn, winter.
func enSeason(w string) (season, bool) {
	switch w {
	case "spring":
		return sSpring, true
	case "summer":
		return sSummer, true
	case "fall", "autumn":
		return sAutumn, true
	case "winter":
		return sWinter, true
	}
	return 0, false
}

// enWeekday parses weekday names and abbreviations (Monday 0).
func enWeekday(w string) (int, bool) {
	switch w {
	case "monday", "mon":
		return 0, true
	case "tuesday", "tue", "tues":
		return 1, true
	case "wednesday", "wed":
		return 2, true
	case "thursday", "thu", "thur", "thurs":
		return 3, true
	case "friday", "fri":
		return 4, true
	case "saturday", "sat":
		return 5, true
	case "sunday", "sun":
		return 6, true
	}
	return 0, false
}

// enMonth parses month names and abbreviations.
func enMonth(w string) (time.Month, bool) {
	switch w {
	case "january", "jan":
		return time.January, true
	case "february", "feb":
		return time.February, true
	case "march", "mar":
		return time.March, true
	case "april", "apr":
		return time.April, true
	case "may":
		return time.May, true
	case "june", "jun":
		return time.June, true
	case "july", "jul":
		return time.July, true
	case "august", "aug":
		return time.August, true
	case "september", "sep", "sept":
		return time.September, true
	case "october", "oct":
		return time.October, true
	case "november", "nov":
		return time.November, true
	case "december", "dec":
		return time.December, true
	}
	return 0, false
}
