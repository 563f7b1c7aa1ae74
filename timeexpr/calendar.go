package timeexpr

import (
	"time"

	"github.com/omoide/omoide/lang"
)

// span is a candidate window [from, to). A zero span (void) is a match that
// names no window, such as 毎週.
type span struct {
	from, to time.Time
}

// unit is a calendar unit.
type unit uint8

const (
	uDay unit = iota + 1
	uWeek
	uMonth
	uYear
)

// part is a part of a day; see partHours.
type part uint8

const (
	pMorning part = iota + 1
	pAfternoon
	pDusk // 夕方
	pNight
)

// partHours gives the [start, end) hours of each part, relative to the
// midnight that starts the day; 30 is 06:00 the next day.
var partHours = [...][2]int{
	pMorning:   {4, 12},
	pAfternoon: {12, 18},
	pDusk:      {15, 19},
	pNight:     {18, 30},
}

// season is a meteorological season; its first month is 3*season.
type season uint8

const (
	sSpring season = iota + 1
	sSummer
	sAutumn
	sWinter
)

// ctx is the calendar of one Parse call: today in the user's location, and
// the language hint of ParseLang (see eventOf).
type ctx struct {
	loc             *time.Location
	hint            lang.Language
	y               int
	m               time.Month
	d               int
	wd              int // days since Monday: Monday 0 ... Sunday 6
	today, tomorrow time.Time
}

// newCtx returns the calendar of now in loc.
func newCtx(now time.Time, loc *time.Location) ctx {
	n := now.In(loc)
	y, m, d := n.Date()
	c := ctx{loc: loc, y: y, m: m, d: d, wd: (int(n.Weekday()) + 6) % 7}
	c.today = c.date(y, m, d)
	c.tomorrow = c.date(y, m, d+1)
	return c
}

// date returns midnight of the (normalized) date y-m-d in the location.
func (c *ctx) date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, c.loc)
}

// clip cuts sp at the end of today and reports whether a window remains.
func (c *ctx) clip(sp span) (span, bool) {
	if sp.to.After(c.tomorrow) {
		sp.to = c.tomorrow
	}
	return sp, !sp.from.IsZero() && sp.from.Before(sp.to)
}

// days returns the n days starting at y-m-d.
func (c *ctx) days(y int, m time.Month, d, n int) span {
	return span{c.date(y, m, d), c.date(y, m, d+n)}
}

// dayOf returns the day anchor n days before today (negative n: after).
func (c *ctx) dayOf(n int) time.Time {
	return c.date(c.y, c.m, c.d-n)
}

// dayWindow returns the whole day starting at midnight t, or part p of it.
func (c *ctx) dayWindow(t time.Time, p part) span {
	y, m, d := t.Date()
	if p == 0 {
		return c.days(y, m, d, 1)
	}
	h := partHours[p]
	return span{
		time.Date(y, m, d, h[0], 0, 0, 0, c.loc),
		time.Date(y, m, d, h[1], 0, 0, 0, c.loc),
	}
}

// monday returns the day of the month of the Monday n weeks before the
// current week's (in the current month's terms; time.Date normalizes).
func (c *ctx) monday(n int) int {
	return c.d - c.wd - 7*n
}

// ago returns the calendar unit u that is n units before the current one.
func (c *ctx) ago(u unit, n int) span {
	switch u {
	case uDay:
		return c.days(c.y, c.m, c.d-n, 1)
	case uWeek:
		return c.days(c.y, c.m, c.monday(n), 7)
	case uMonth:
		return span{c.date(c.y, c.m-time.Month(n), 1), c.date(c.y, c.m-time.Month(n)+1, 1)}
	case uYear:
		return span{c.date(c.y-n, 1, 1), c.date(c.y-n+1, 1, 1)}
	}
	return span{}
}

// agoRange returns the units from n units before the current one through m
// units before it (n >= m).
func (c *ctx) agoRange(u unit, n, m int) span {
	return span{c.ago(u, n).from, c.ago(u, m).to}
}

// weekend returns the Saturday and Sunday of the week n weeks before the
// current one.
func (c *ctx) weekend(n int) span {
	return c.days(c.y, c.m, c.monday(n)+5, 2)
}

// weekendNow is 週末: this weekend on Saturday and Sunday, else the last one.
func (c *ctx) weekendNow() span {
	if c.wd >= 5 {
		return c.weekend(0)
	}
	return c.weekend(1)
}

// recentWeekday returns the most recent weekday wd (Monday 0) strictly before
// today.
func (c *ctx) recentWeekday(wd int) time.Time {
	back := (c.wd - wd + 7) % 7
	if back == 0 {
		back = 7
	}
	return c.dayOf(back)
}

// weekday returns weekday wd (Monday 0) of the week n weeks before the
// current one.
func (c *ctx) weekday(n, wd int) time.Time {
	return c.date(c.y, c.m, c.monday(n)+wd)
}

// month returns month m of year y.
func (c *ctx) month(y int, m time.Month) span {
	return span{c.date(y, m, 1), c.date(y, m+1, 1)}
}

// monthYear returns the year of the most recent month m: this year unless m is
// after the current month (strict: m is before or the current month).
func (c *ctx) monthYear(m time.Month, strict bool) int {
	if m < c.m || (!strict && m == c.m) {
		return c.y
	}
	return c.y - 1
}

// seasonSpan returns season s of year y (a winter runs into year y+1).
func (c *ctx) seasonSpan(s season, y int) span {
	first := time.Month(3 * s)
	return span{c.date(y, first, 1), c.date(y, first+3, 1)}
}

// seasonYear returns the year of the current season s for 今年の / この / this:
// the current year, except that in January and February the current winter
// began the year before.
func (c *ctx) seasonYear(s season) int {
	if s == sWinter && c.m <= 2 {
		return c.y - 1
	}
	return c.y
}

// lastSeason returns the most recent season s that ended on or before today,
// or for back > 0 the one back years before it (the summer before last).
func (c *ctx) lastSeason(s season, back int) span {
	sp := c.seasonSpan(s, c.y)
	for range 2 { // a season ends at most two years after the current year begins
		if !sp.to.After(c.today) {
			break
		}
		sp = c.seasonSpan(s, sp.from.Year()-1)
	}
	if back > 0 {
		sp = c.seasonSpan(s, sp.from.Year()-back)
	}
	return sp
}

// recentSeason returns the current season s once it has begun, else the last
// one: over the summer.
func (c *ctx) recentSeason(s season) span {
	if sp := c.seasonSpan(s, c.seasonYear(s)); !sp.from.After(c.today) {
		return sp
	}
	return c.lastSeason(s, 0)
}

// aroundDate returns today's date in year y, ±7 days.
func (c *ctx) aroundDate(y int) span {
	return span{c.date(y, c.m, c.d-7), c.date(y, c.m, c.d+8)}
}
