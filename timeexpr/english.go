package timeexpr

import (
	"strings"
	"time"
)

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
//	[a] couple [of] <unit> ago (units 1-3 back), half a year ago,
//	<season> last|this year|<yyyy>, <season> of last year|<yyyy>, the
//	<season> before last, last|this year's <season>, this past <season>,
//	over|during the <season>, in|during [the] <season> [of] <yyyy>,
//	<n> <season>s ago, a <season> ago,
//	[at|on|over|during|in|for|around|last|this|this past] <event>
//	[last|this year|<yyyy>|before last], last|this year's <event>,
//	the <event> [before last]; see enEvent for the events.
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
			if se, ok := enSeason(w3); ok {
				return match{end: e3, sp: c.lastSeason(se, 0)}
			}
			if ev, e, ok := enEvent(s, e3-len(w3), fPrep); ok {
				return match{end: e, sp: c.recentEvent(ev, true, 0)}
			}
			return match{}
		}
		if ev, e, ok := enEvent(s, e2-len(w2), fPrep); ok {
			return match{end: e, sp: c.eventSpan(ev, c.y), t: tNow}
		}
		if m := c.enYears(s, w2, e2, 0); m.end > 0 {
			return m
		}
		m := c.enPeriod(w2, e2, 0)
		m.t = tNow
		return m
	case "last":
		if ev, e, ok := enEvent(s, e2-len(w2), fPrep); ok {
			return match{end: e, sp: c.recentEvent(ev, true, 0)}
		}
		if m := c.enYears(s, w2, e2, 1); m.end > 0 {
			return m
		}
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
			return match{end: e2, sp: c.lastSeason(se, 0)}
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
	case "over", "on", "during", "in", "at", "for", "around":
		if w2 == "the" && (w1 == "over" || w1 == "on" || w1 == "during") {
			if w3, e3 := nextWord(s, e2); w3 == "weekend" {
				return c.enWeekend(s, e3)
			}
		}
		if m := c.enPrepEvent(s, w1, w2, e2); m.end > 0 {
			return m
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
		if se, ok := enSeason(w1); ok {
			return c.enSeasonYear(s, se, w1 == "fall", e1)
		}
		if ev, e, ok := enEvent(s, i, 0); ok {
			switch w, _ := prevWord(s, 0, i); {
			case w == "merry" || w == "happy":
				return match{end: e} // a greeting
			case w == "bill" && w1 == "nye":
				return match{}
			}
			return c.enEventYear(s, ev, e)
		}
	}
	return match{}
}

// enPrepEvent matches an event or a season after the preposition w1 (w2
// follows it, ending at e2): at christmas, on the 4th of july, over the
// holidays, over the summer, in the summer of 2024, during summer 2024.
func (c *ctx) enPrepEvent(s, w1, w2 string, e2 int) match {
	w, e, f := w2, e2, fPrep
	if w2 == "the" {
		w, e = nextWord(s, e2)
		f |= fThe
	}
	if ev, end, ok := enEvent(s, e-len(w), f); ok {
		return c.enEventYear(s, ev, end)
	}
	se, ok := enSeason(w)
	switch {
	case !ok:
	case w1 == "in" || w1 == "during":
		if m := c.enSeasonYear(s, se, false, e); m.end > 0 || w1 == "in" {
			return m
		}
		fallthrough
	case w1 == "over" && f&fThe != 0:
		return match{end: e, sp: c.recentSeason(se), t: tAny}
	}
	return match{}
}

// enYears matches year's <season|event> after last (n 1) or this (n 0),
// where w2 ending at e2 is the word after it: last year's summer, this
// year's christmas.
func (c *ctx) enYears(s, w2 string, e2, n int) match {
	p := possessive(s, e2)
	if w2 != "year" || p == e2 {
		return match{}
	}
	t := tPast
	if n == 0 {
		t = tNow
	}
	w3, e3 := nextWord(s, p)
	if se, ok := enSeason(w3); ok {
		return match{end: e3, sp: c.seasonSpan(se, c.seasonYear(se)-n), t: t}
	}
	if ev, e, ok := enEvent(s, e3-len(w3), fPrep); ok {
		return match{end: e, sp: c.eventSpan(ev, c.y-n), t: t}
	}
	return match{}
}

// yearQual is a year named after a season or an event.
type yearQual uint8

const (
	qNone       yearQual = iota
	qLastYear            // last year, of last year
	qThisYear            // this year, of this year
	qYear                // <yyyy>, of|in <yyyy>
	qBeforeLast          // before last
)

// enYearQual reads the year named after a season or an event at e.
func enYearQual(s string, e int) (q yearQual, y, end int) {
	w, k := nextWord(s, e)
	if w == "before" {
		if w2, k2 := nextWord(s, k); w2 == "last" {
			return qBeforeLast, 0, k2
		}
		return qNone, 0, e
	}
	if w == "of" || w == "in" {
		w, k = nextWord(s, k)
	}
	if len(w) == 4 {
		if n, ok := enNumber(w); ok && n >= 1000 {
			return qYear, n, k
		}
	}
	if w == "last" || w == "this" {
		if w2, k2 := nextWord(s, k); w2 == "year" && possessive(s, k2) == k2 {
			if w == "last" {
				return qLastYear, 0, k2
			}
			return qThisYear, 0, k2
		}
	}
	return qNone, 0, e
}

// enSeasonYear matches the year after season se ending at e: summer last
// year, summer of 2024, the summer before last. Without one it is no match.
// yearOnly admits only a year in digits (fall 2024, not "a fall last year").
func (c *ctx) enSeasonYear(s string, se season, yearOnly bool, e int) match {
	q, y, end := enYearQual(s, e)
	if yearOnly && q != qYear {
		return match{}
	}
	switch q {
	case qLastYear:
		return match{end: end, sp: c.seasonSpan(se, c.seasonYear(se)-1)}
	case qThisYear:
		return match{end: end, sp: c.seasonSpan(se, c.seasonYear(se)), t: tNow}
	case qYear:
		return c.yearMatch(end, c.seasonSpan(se, y))
	case qBeforeLast:
		return match{end: end, sp: c.lastSeason(se, 1)}
	}
	return match{}
}

// enEventYear resolves event ev ending at e and the year after it, if any:
// christmas last year, christmas 2024, the christmas before last; without
// one, the most recent occurrence that began on or before today.
func (c *ctx) enEventYear(s string, ev event, e int) match {
	q, y, end := enYearQual(s, e)
	switch q {
	case qLastYear:
		return match{end: end, sp: c.eventSpan(ev, c.y-1)}
	case qThisYear:
		return match{end: end, sp: c.eventSpan(ev, c.y), t: tNow}
	case qYear:
		return c.yearMatch(end, c.eventSpan(ev, y))
	case qBeforeLast:
		return match{end: end, sp: c.recentEvent(ev, true, 1)}
	}
	return match{end: e, sp: c.recentEvent(ev, false, 0), t: tAny}
}

// yearMatch is the match of a window of a year named in digits: past, or
// the current period when it reaches past today.
func (c *ctx) yearMatch(end int, sp span) match {
	if sp.to.After(c.today) {
		return match{end: end, sp: sp, t: tNow}
	}
	return match{end: end, sp: sp}
}

// Frames of an English event name (see enEvent).
const (
	fPrep = 1 << iota // after a preposition, last or this
	fThe              // after the
)

// enEvent parses the name of an annual event at the word starting at i and
// returns the event and the end of its name:
//
//	christmas|xmas [eve|day], christmas holidays|break|vacation (the
//	holidays), new year's|new years [eve|day], nye, thanksgiving [day],
//	halloween, valentine's|valentines [day], 4th|fourth of july, july 4th,
//	easter [sunday], labor|labour day, memorial day, the holidays, the
//	holiday season.
//
// frame says what comes before (fPrep, fThe): "new year" without 's only
// after a preposition (over new year, not "a new year"), valentines alone
// only after one, holidays only after the. A name followed by a word of
// enObjects is a thing, not a time: christmas tree, easter egg.
func enEvent(s string, i, frame int) (event, int, bool) {
	e1 := wordEnd(s, i)
	w1 := s[i:e1]
	w2, e2 := nextWord(s, e1)
	ev, end := event(0), e1
	switch w1 {
	case "christmas", "xmas":
		ev = eChristmas
		switch w2 {
		case "eve":
			ev, end = eChristmasEve, e2
		case "day":
			ev, end = eChristmasDay, e2
		case "holidays", "holiday", "break", "vacation":
			ev, end = eNenmatsuNenshi, e2
		}
	case "new":
		if w2 != "year" && w2 != "years" {
			return 0, i, false
		}
		p := possessive(s, e2)
		w3, e3 := nextWord(s, p)
		switch {
		case w3 == "eve":
			ev, end = eOmisoka, e3
		case w3 == "day":
			ev, end = eGantan, e3
		case w2 == "years" || p > e2 || frame&fPrep != 0 && frame&fThe == 0:
			ev, end = eNewYear, p
		}
	case "nye":
		ev = eOmisoka
	case "thanksgiving":
		ev = eThanksgiving
		switch w2 {
		case "day":
			ev, end = eThanksgivingDay, e2
		case "weekend", "break":
			end = e2
		}
	case "halloween":
		ev = eHalloween
		if w2 == "night" {
			end = e2
		}
	case "valentine", "valentines":
		p := possessive(s, e1)
		w3, e3 := nextWord(s, p)
		switch {
		case w3 == "day":
			ev, end = eValentine, e3
		case p > e1 || w1 == "valentines" && frame&fPrep != 0:
			ev, end = eValentine, p
		}
	case "4th", "fourth":
		if w3, e3 := nextWord(s, e2); w2 == "of" && (w3 == "july" || w3 == "jul") {
			ev, end = eJuly4, e3
		}
	case "july", "jul":
		if w2 == "4th" || w2 == "4" {
			ev, end = eJuly4, e2
		}
	case "easter":
		ev = eEaster
		switch w2 {
		case "sunday":
			ev, end = eEasterSunday, e2
		case "weekend", "break", "holidays":
			end = e2
		}
	case "labor", "labour", "memorial":
		if w2 == "day" {
			ev, end = eLaborDay, e2
			if w1 == "memorial" {
				ev = eMemorialDay
			}
			if w3, e3 := nextWord(s, e2); w3 == "weekend" {
				end = e3
			}
		}
	case "holidays":
		if frame&fThe != 0 {
			ev = eNenmatsuNenshi
		}
	case "holiday":
		if w2 == "season" {
			ev, end = eNenmatsuNenshi, e2
		}
	}
	if ev == 0 {
		return 0, i, false
	}
	if w, _ := nextWord(s, end); enObjects[w] {
		return 0, i, false
	}
	return ev, end, true
}

// enObjects are the things named after an event: christmas tree, easter
// egg, halloween costume. An event before one of them is no time.
var enObjects = map[string]bool{
	"tree": true, "trees": true, "gift": true, "gifts": true, "present": true, "presents": true,
	"card": true, "cards": true, "song": true, "songs": true, "carol": true, "carols": true,
	"music": true, "playlist": true, "album": true, "movie": true, "movies": true, "film": true,
	"films": true, "episode": true, "special": true, "light": true, "lights": true,
	"decoration": true, "decorations": true, "decor": true, "ornament": true, "ornaments": true,
	"sweater": true, "sweaters": true, "jumper": true, "stocking": true, "stockings": true,
	"list": true, "wishlist": true, "market": true, "markets": true, "cookie": true,
	"cookies": true, "cake": true, "candy": true, "costume": true, "costumes": true,
	"mask": true, "egg": true, "eggs": true, "bunny": true, "pumpkin": true, "pumpkins": true,
	"island": true, "resolution": true, "resolutions": true, "spirit": true, "vibes": true,
	"theme": true, "themed": true, "sale": true, "sales": true, "shopping": true,
}

// possessive returns the end of the 's (or ’s) at e, or e when there is none.
func possessive(s string, e int) int {
	for _, p := range [...]string{"'s", "’s"} {
		if strings.HasPrefix(s[e:], p) && (e+len(p) == len(s) || !isAlnum(s[e+len(p)])) {
			return e + len(p)
		}
	}
	return e
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
// last, weekend, an event (the 4th of july, the holidays), a season with a
// year (the summer before last, the summer of 2024).
func (c *ctx) enThe(s, w2 string, e2 int) match {
	if w2 == "weekend" {
		return c.enWeekend(s, e2)
	}
	if ev, e, ok := enEvent(s, e2-len(w2), fThe); ok {
		return c.enEventYear(s, ev, e)
	}
	if se, ok := enSeason(w2); ok {
		return c.enSeasonYear(s, se, false, e2)
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

// enAgo matches <unit> ago after the count n, and <season>s ago: two
// summers ago is the summer before last.
func (c *ctx) enAgo(s, w2 string, e2, n int) match {
	u, ok := enUnit(w2)
	if !ok {
		se, ok := enSeason(strings.TrimSuffix(w2, "s"))
		if w3, e3 := nextWord(s, e2); ok && w3 == "ago" {
			return match{end: e3, sp: c.lastSeason(se, n-1)}
		}
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
